#include "sim/trace/digest.h"

#include <vector>

#include "gtest/gtest.h"
#include "sim/event.h"
#include "sim/event_payloads.h"

namespace stackcheck::sim {
namespace {

std::vector<Event> Sample() {
  return {
      Event(0, 0, EventKind::kThreadStart, payload::ThreadStart{kNoActor}),
      Event(10, 0, EventKind::kAlloc, payload::Block{0x200000, 8 << 20}),
      // Kernel 1 on stream 0, region 3, 64 warp slots of 128 KiB.
      Event(25, 2, EventKind::kKernelEnqueue,
            payload::KernelLaunch{payload::Kernel{1, 0, 3, 64}, 0x200000, 128 << 10}),
  };
}

// Changes one of `e`'s words, whatever its kind means by it.
template <typename Edit>
void EditWords(Event& e, Edit edit) {
  EventWords words = e.words();
  edit(words);
  e = Event(e.time_ns, e.actor, e.kind, words);
}

TEST(DigestTest, SameListSameDigest) { EXPECT_EQ(Digest(Sample()), Digest(Sample())); }

TEST(DigestTest, KnownValueIsStableAcrossBuilds) {
  // FNV-1a of nothing is the offset basis; pinning it catches a changed hash.
  EXPECT_EQ(Digest({}), 14695981039346656037ull);
  // Replay files record digests: a changed function would orphan them.
  EXPECT_EQ(Digest(Sample()), 5576061355877022899ull);
  EventDigest incremental;
  for (const Event& e : Sample()) incremental.Add(e);
  EXPECT_EQ(incremental.value(), Digest(Sample()));
}

TEST(DigestTest, EveryFieldChangesTheDigest) {
  const std::uint64_t base = Digest(Sample());
  // One mutation per field of the last event.
  const std::vector<void (*)(Event&)> mutations = {
      [](Event& e) { e.time_ns += 1; },
      [](Event& e) { e.actor += 1; },
      [](Event& e) { e.kind = EventKind::kKernelStart; },
      [](Event& e) { EditWords(e, [](EventWords& w) { w.a += 1; }); },
      [](Event& e) { EditWords(e, [](EventWords& w) { w.b += 1; }); },
      [](Event& e) { EditWords(e, [](EventWords& w) { w.c += 1; }); },
      [](Event& e) { EditWords(e, [](EventWords& w) { w.d += 1; }); },
      [](Event& e) { EditWords(e, [](EventWords& w) { w.x += 1; }); },
      [](Event& e) { EditWords(e, [](EventWords& w) { w.y += 1; }); },
      // The high byte counts.
      [](Event& e) { EditWords(e, [](EventWords& w) { w.y += std::uint64_t{1} << 63; }); },
  };
  for (std::size_t i = 0; i < mutations.size(); ++i) {
    std::vector<Event> events = Sample();
    mutations[i](events.back());
    EXPECT_NE(Digest(events), base) << "mutation " << i;
  }
}

TEST(DigestTest, OrderAndLengthMatter) {
  std::vector<Event> events = Sample();
  std::swap(events[1], events[2]);
  EXPECT_NE(Digest(events), Digest(Sample()));
  events = Sample();
  events.pop_back();
  EXPECT_NE(Digest(events), Digest(Sample()));
}

}  // namespace
}  // namespace stackcheck::sim
