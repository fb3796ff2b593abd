// The footprint vocabulary: what a step touches, as the strategies (DPOR,
// sleep sets) see it, and how the engine names the objects it touches.
// Steps are dependent when they touch a common object and one writes it.
#ifndef STACKCHECK_SIM_FOOTPRINT_H_
#define STACKCHECK_SIM_FOOTPRINT_H_

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace stackcheck::sim {

// Actors are numbered densely from 0 within one execution, in creation order
// (deterministic for a given scenario and schedule).
using ActorId = std::uint32_t;

// The shared object a step touches. Objects are encoded (kind << 24 | index)
// by the engine; kGlobalObject conflicts with everything. Objects with
// kDeviceBit set are the device's state; kDeviceWideObject (always written)
// conflicts with every one of them, and with nothing else: a step that
// changes the whole device (a trap poisoning the context) but no host state.
//
// Besides objects, a footprint says whether the step runs program code (the
// policy's and runtime's code between two scheduling points of a host or
// callback thread, whose state no object names: it is assumed guarded by
// simulated mutexes or owned by one thread), and whether it is program-wide:
// it changes that state unlocked (a real program's exit handlers, under
// exec), so it conflicts with every step that runs program code, and with no
// GPU step.
//
// Shared state (core/shared.h) is meant to be touched with its guard mutex
// held. Each guard mutex of an execution has a guard bit (of eight; two may
// share one, which only costs reduction): a step declares the bits of the
// guards its actor holds (`held`), and an access made without its guard
// declares that guard's bit as broken (`breaks`). A step that breaks a bit
// conflicts with every step holding it, where the guarded accesses are.
struct Access {
  std::uint32_t object = 0;
  bool write = false;
};
inline constexpr std::uint32_t kGlobalObject = 0;
inline constexpr std::uint32_t kDeviceBit = 0x80000000u;
inline constexpr std::uint32_t kDeviceWideObject = kDeviceBit;
inline constexpr std::uint8_t kRunsProgram = 1;
inline constexpr std::uint8_t kProgramWide = 2;

// What an actor's next step touches: at most three objects (e.g. the memory
// ledger, and what is enqueued on and what has completed on a stream). Two
// steps are dependent when they touch a common object and one of them writes
// it; reordering independent steps cannot change the outcome, which is what
// sleep sets and DPOR exploit.
struct alignas(16) Footprint {
  Access accesses[3];
  std::uint8_t count = 0;
  std::uint8_t program = 0;  // kRunsProgram | kProgramWide
  std::uint8_t held = 0;     // guard bits its actor holds
  std::uint8_t breaks = 0;   // guard bits of state it touches without the guard
  // What the step does to a lock or a wait (kLockAttempt...), for the race
  // analysis only: Dependent() ignores it.
  std::uint8_t blocking = 0;
  // kEndsAtRest on the step that ends the process once no other actor can
  // move (Scheduler::AwaitRest); Dependent() ignores it.
  std::uint8_t ends = 0;
  // kBesideDeviceWide on a step that no device-wide step (a trapping
  // kernel's end, a memory query) changes or observes; Dependent() and
  // happens-before leave that pair unordered.
  std::uint8_t beside = 0;
  // Always zero. Named so that a copy moves all 32 bytes as two aligned
  // 16-byte halves, the way MakeFootprint and StoreWithProgram write them: a
  // copy of the 31 bytes before it loads a 16-byte span straddling both
  // halves, which cannot be store-forwarded (a stall at every step).
  std::uint8_t unused = 0;
};

// Footprint::blocking. Some races (step i, then a dependent step j of
// another actor) cannot be reversed into an execution with a new outcome,
// and DPOR does not reverse them (HappensBefore::Reversible); Dependent(),
// and so happens-before and sleep sets, ignore these flags:
//  - i kOwnerUnlock, j kLockAttempt of the same mutex, still held by i's
//    actor when i ran (checked: since i was declared, only other actors'
//    lock attempts touched the mutex): run before i, j would only block,
//    changing nothing, until i. The order of the critical sections is still
//    explored, through the race between the two lock steps.
//  - i kLockAttempt that blocked on j's actor (checked the same way), j that
//    actor's kOwnerUnlock: run first, j lets i lock at once, as its resume
//    does.
//  - i kStreamWork, j kWaitsForIdle: i is work pending on the legacy stream,
//    so before it the stream is busy and j blocks until after i (or returns
//    at once on a sticky error or a bad argument, decided by state i does not
//    touch). Whether j finds the stream busy is still explored, through its
//    race with the host step that enqueued the work. The other way round the
//    race stays: a wait that returned at once on a sticky error did not
//    block, and the work running before it can change what follows.
//  - a kernel's start and the launch whose kLaunch object it reads: that
//    launch made its stream runnable, so the start never runs first.
inline constexpr std::uint8_t kLockAttempt =
    1;  // locks the mutex it writes, or blocks while another actor holds it
inline constexpr std::uint8_t kOwnerUnlock =
    2;  // unlocks the mutex it writes, held by its actor when declared
inline constexpr std::uint8_t kWaitsForIdle =
    4;  // returns once the legacy stream is idle, blocking till then
inline constexpr std::uint8_t kStreamWork = 8;  // a GPU step of work pending on the legacy stream
// Set by the engine on a kLockAttempt it offers while another actor (or the
// attempting one) holds the mutex: the step only finds it held and waits.
// It follows the holder's lock in happens-before, but the holder's unlock
// does not follow it: that unlock, and all the holder does after it, would
// be the same had the attempt not been made, so ordering them after the
// attempter's earlier steps would hide their races with those steps (an
// exit() before the attempt, racing with the holder's own exit after).
inline constexpr std::uint8_t kBlockedAttempt = 16;
// On a kWaitsForIdle wait whose result differs when a trap wakes it (a
// synchronous copy: 999) from when it starts after the trap (719): its race
// with the trapping step (device-wide) is explored both ways.
inline constexpr std::uint8_t kWokenByTrapDiffers = 32;
// Set by the engine on a kWaitsForIdle step it offers while the context has
// no sticky error: the wait returns only once the legacy stream is idle (or
// a trap, a step of its own, wakes it). A GPU step of work pending on the
// stream after it, run first instead, would leave the wait to find the same
// end. Without it a wait returns at once on the sticky error, work still
// queued, and that work running first can change what follows.
inline constexpr std::uint8_t kWaitsOnHealthyContext = 64;
// On a kernel launch when no kernel of the execution can trap
// (SimConfig::kernels_never_trap). After a wait on a healthy context that
// only reads (a synchronous copy, a synchronisation), run first it would
// only make the wait wait for that work and return as it did: everything
// that ordering shows, the wait run first and its actor's next steps delayed
// past the work show too. Not when a trap may come, even if this kernel
// does not trap: run first, the launch keeps the wait waiting while its
// thread enqueues a kernel that traps, and the wait woken by the trap fails
// (event-fence, 2 x 2 mapped with an abort: without that condition the
// search reached 1,138 observations, with it 1,174).
inline constexpr std::uint8_t kEnqueuesHarmlessWork = 128;

// Footprint::ends. The step taken when no other actor can move, and so the
// last of its execution: it races with nothing, since nothing else could
// have run instead of it, and a search need not try it earlier - at an
// earlier point it is not enabled. DfsStrategy does not count it as global
// (Options::last_step_global).
inline constexpr std::uint8_t kEndsAtRest = 1;

bool Dependent(const Footprint& a, const Footprint& b);

// Footprint object kinds: object id = kind << 24 | index .
enum class ObjectKind : std::uint32_t {
  kMutex = 1,
  kStream = 2,  // what is enqueued on a stream (launches append to it)
  kMemory = 3,  // the device-memory ledger
  kThread = 4,  // an actor's life (spawn, finish, join)
  kEvent = 5,
  kCallbackThread = 6,
  kContext = 7,          // modules, context lifetime
  kStreamOrder = 8,      // the set of streams and the legacy barrier between them
  kBlock = 9,            // one device-memory block (index: a hash of its base)
  kProcess = 10,         // whether an exit() has started (the first one writes it)
  kThreadEnd = 11,       // a thread's end, which Join waits for (index: actor)
  kEventTable = 12,      // the event handles (creation)
  kEventPointer = 13,    // which record an event stands for (SEM-14); kEvent is
                         // whether its records completed
  kHostWord = 14,        // a device-mapped host word (EXT-01/02)
  kStreamProgress = 15,  // what has completed on a stream (its GPU steps pop it)
  kLaunch = 16,          // one launch call (index: actor, its launch count), which
                         // the launched kernel's start may read (sim_gpu.cc)
  kShared = 17,          // program state declared through core/shared.h (index:
                         // its SharedId); an access without its guard is a step
                         // of its own that breaks the guard's bit (sim_host.cc)
  // What the program has told its user (stderr), in order: each message is a
  // step that writes it.
  kMessages = 18,
};

// The device's objects carry kDeviceBit (above), so that one step
// can conflict with all of them and with no host object.
inline constexpr bool IsDeviceObjectKind(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::kStream:
    case ObjectKind::kMemory:
    case ObjectKind::kEvent:
    case ObjectKind::kCallbackThread:
    case ObjectKind::kContext:
    case ObjectKind::kStreamOrder:
    case ObjectKind::kBlock:
    case ObjectKind::kEventTable:
    case ObjectKind::kEventPointer:
    case ObjectKind::kStreamProgress:
    case ObjectKind::kLaunch:
    case ObjectKind::kHostWord:  // its calls read the sticky state; a trap stops its writes
      return true;
    default:
      return false;
  }
}
inline std::uint32_t ObjectId(ObjectKind kind, std::uint32_t index) {
  return (IsDeviceObjectKind(kind) ? kDeviceBit : 0u) | static_cast<std::uint32_t>(kind) << 24 |
         (index & 0xffffffu);
}
// Footprints are built with two 16-byte stores (the first two accesses; the
// third with the count and the padding after it): the engine copies a
// footprint at every step, and a 16-byte load of a struct written field by
// field cannot be store-forwarded (a stall of ~15 cycles per step).
inline Footprint MakeFootprint(std::uint32_t o1, bool w1, std::uint32_t o2, bool w2,
                               std::uint32_t o3, bool w3, std::uint8_t count) {
  Footprint f;
  static_assert(sizeof(Access) == 8 && offsetof(Footprint, count) == 24 &&
                    offsetof(Footprint, program) == 25 && offsetof(Footprint, held) == 26 &&
                    offsetof(Footprint, blocking) == 28 && sizeof(Footprint) == 32,
                "three 8-byte accesses, then the count and the program flags "
                "in the last 8 bytes");
#if defined(__SSE2__)
  auto* halves = reinterpret_cast<__m128i*>(f.accesses);
  _mm_storeu_si128(
      halves, _mm_set_epi32(w2 ? 1 : 0, static_cast<int>(o2), w1 ? 1 : 0, static_cast<int>(o1)));
  _mm_storeu_si128(halves + 1, _mm_set_epi32(0, count, w3 ? 1 : 0, static_cast<int>(o3)));
#else
  f.accesses[0] = {o1, w1};
  f.accesses[1] = {o2, w2};
  f.accesses[2] = {o3, w3};
  f.count = count;
#endif
  return f;
}
inline Footprint Touches(std::uint32_t object, bool write) {
  return MakeFootprint(object, write, 0, false, 0, false, 1);
}
inline Footprint Touches(std::uint32_t o1, bool w1, std::uint32_t o2, bool w2) {
  return MakeFootprint(o1, w1, o2, w2, 0, false, 2);
}
inline Footprint Touches(std::uint32_t o1, bool w1, std::uint32_t o2, bool w2, std::uint32_t o3,
                         bool w3) {
  return MakeFootprint(o1, w1, o2, w2, o3, w3, 3);
}
inline Footprint GlobalFootprint() {
  return MakeFootprint(kGlobalObject, true, 0, false, 0, false, 1);
}
// The step that ends the process at rest: it touches nothing.
// Footprint::beside. A plain load of a device-mapped host word reads the
// legacy stream's progress only to be ordered against the steps that may
// write the word (kernel ends, write-value steps). A trapping kernel's end
// writes no word, and a memory query reads none, so either order of such a
// step and the load leaves the same state and the load returns the same
// value; neither enables or disables the other (a load works in any context
// state). The device-wide step's footprint cannot say "every device object
// but the words", so the load says it is not among them.
inline constexpr std::uint8_t kBesideDeviceWide = 1;

inline Footprint EndAtRestFootprint() {
  Footprint f;
  f.ends = kEndsAtRest;
  return f;
}
inline Footprint DeviceWideFootprint() {
  return MakeFootprint(kDeviceWideObject, true, 0, false, 0, false, 1);
}
// `step`, marked kBesideDeviceWide.
inline Footprint BesideDeviceWide(Footprint step) {
  step.beside |= kBesideDeviceWide;
  return step;
}
// `step`, with Footprint::blocking flags added.
inline Footprint Blocking(Footprint step, std::uint8_t flags) {
  step.blocking |= flags;
  return step;
}
// `step`, declared program-wide (see Footprint::program): for a step that
// runs code changing policy or runtime state without the program's locks.
inline Footprint ProgramWide(Footprint step) {
  step.program |= kProgramWide;
  return step;
}
// `step`, which touches state guarded by guard bits `bits` without holding
// the guard.
inline Footprint Breaking(Footprint step, std::uint8_t bits) {
  step.breaks |= bits;
  return step;
}
// Stores `from` into `*to` with `program` added to its flags and `held` to
// its held guard bits, in two 16-byte stores like MakeFootprint (the engine
// reads it back whole at every step).
inline void StoreWithProgram(Footprint* to, const Footprint& from, std::uint8_t program,
                             std::uint8_t held = 0) {
#if defined(__SSE2__)
  const auto* in = reinterpret_cast<const __m128i*>(from.accesses);
  auto* out = reinterpret_cast<__m128i*>(to->accesses);
  _mm_storeu_si128(out, _mm_loadu_si128(in));
  _mm_storeu_si128(out + 1, _mm_or_si128(_mm_loadu_si128(in + 1),
                                         _mm_set_epi32(0, program << 8 | held << 16, 0, 0)));
#else
  *to = from;
  to->program |= program;
  to->held |= held;
#endif
}

}  // namespace stackcheck::sim

#endif  // STACKCHECK_SIM_FOOTPRINT_H_
