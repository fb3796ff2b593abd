#include "sim/trace/digest.h"

#include <vector>

#include "gtest/gtest.h"

namespace stackcheck::sim {
namespace {

std::vector<Event> Sample() {
  std::vector<Event> events(3);
  events[0] = {0, 0, EventKind::kThreadStart, kNoActor, 0, 0, 0, 0, 0};
  events[1] = {10, 0, EventKind::kAlloc, 0, 0, 0, 0, 0x200000, 8 << 20};
  events[2] = {25, 2, EventKind::kKernelEnqueue, 1, 0, 3, 64, 0x200000, 128 << 10};
  return events;
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
      [](Event& e) { e.a += 1; },
      [](Event& e) { e.b += 1; },
      [](Event& e) { e.c += 1; },
      [](Event& e) { e.d += 1; },
      [](Event& e) { e.x += 1; },
      [](Event& e) { e.y += 1; },
      [](Event& e) { e.y += std::uint64_t{1} << 63; },  // the high byte counts
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
