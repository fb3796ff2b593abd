#include "sim/program/futex_trap.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "sim/program/loaded_text.h"
#include "sim/program/plugin_calls.h"
#include "sim/program/program_threads.h"
#include "sim/program/signal_chain.h"

namespace stackcheck::program {
namespace {

// The futex words seen so far, each with its wait queue (one execution per
// process, so the queues live as long as the process).
struct Word {
  std::uint32_t queue = 0;
  std::size_t ordinal = 0;    // 1 for the first word seen, ...
  std::uint32_t waiters = 0;  // threads asleep on it now
  bool holder_known = false;  // whom they wait for was found
};

std::map<std::uintptr_t, Word>& Words() {
  static auto* words = new std::map<std::uintptr_t, Word>;
  return *words;
}

Word& WordOf(Twin& twin, const int* address) {
  auto [it, fresh] = Words().try_emplace(reinterpret_cast<std::uintptr_t>(address));
  if (fresh) {
    it->second.ordinal = Words().size();
    it->second.queue = twin.host.NewWaitQueue(absl::StrCat("libgomp lock #", it->second.ordinal));
  }
  return it->second;
}

// The thread waiting on a libgomp futex waits for whoever holds that lock.
// The only holder this library can see is a thread inside a plugin call
// libgomp makes with the device lock held (plugin_calls.h); if exactly one
// other thread is in one, the word is taken to be that device lock.
void Blame(Twin& twin, Word& w, ThreadId except) {
  std::string call;
  const ThreadId holder = DeviceLockHolder(except, &call);
  w.holder_known = holder != kNoThread;
  if (holder == kNoThread) {
    twin.host.BlameWaitQueue(w.queue, kNoThread);
    return;
  }
  twin.host.BlameWaitQueue(w.queue, holder);
  twin.host.RenameWaitQueue(w.queue,
                            absl::StrCat("libgomp's device lock (futex word #", w.ordinal,
                                         ", taken to be devicep->lock: its holder is inside ", call,
                                         ", which libgomp calls with the device lock held)"));
}

long Futex(int* word, int op, int value, const void* timeout) {
  const int command = op & FUTEX_CMD_MASK;
  long result = 0;
  // A wake has no timeout argument (its register holds whatever it held).
  const bool modelled = (command == FUTEX_WAKE || (command == FUTEX_WAIT && timeout == nullptr)) &&
                        Controlled() && HasTwin();
  // The word's address goes to the call log only: it changes from run to
  // run, and the trace must not (the digest, the fingerprints).
  if (modelled && command == FUTEX_WAIT) {
    LogProgramCall(
        CallRecord::Kind::kFutexWait, "",
        absl::StrFormat("futex-wait (libgomp) on the word at %p, value %d", word, value));
  }
  if (modelled && AtPoint([&](Twin& twin) {
        Word& w = WordOf(twin, word);
        const std::uint32_t queue = w.queue;
        if (command == FUTEX_WAKE) {
          result = twin.host.WakeQueue(queue, value < 0 ? 0 : static_cast<std::uint32_t>(value));
          twin.host.ProgramCall("futex-wake (libgomp)", queue, static_cast<std::uint64_t>(result));
          return;
        }
        twin.host.ProgramCall("futex-wait (libgomp)", queue);
        if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != value) {
          result = -EAGAIN;
          return;
        }
        Blame(twin, w, twin.host.CurrentThread());
        ++w.waiters;
        twin.host.WaitOnQueue(queue);
        --w.waiters;
      })) {
    return result;
  }
  // Not a model's business (another operation, a timeout, no twin): the
  // kernel's answer, through libc's syscall(), which the filter lets through.
  const long r = syscall(SYS_futex, word, op, value, timeout, nullptr, 0);
  return r == -1 ? -errno : r;
}

void OnSigsys(int, siginfo_t* info, void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
  greg_t* regs = uc->uc_mcontext.gregs;
  constexpr int kBySeccomp = 1;  // SYS_SECCOMP, si_code of a filter's SIGSYS
  if (info->si_code != kBySeccomp || info->si_syscall != SYS_futex) {
    PassToProgram(SIGSYS, info, context);  // not the filter's: the program's own
    return;
  }
  const int saved_errno = errno;
  regs[REG_RAX] =
      Futex(reinterpret_cast<int*>(regs[REG_RDI]), static_cast<int>(regs[REG_RSI]),
            static_cast<int>(regs[REG_RDX]), reinterpret_cast<const void*>(regs[REG_R10]));
  errno = saved_errno;
}

}  // namespace

void DeviceLockHolderKnown(Twin& twin) {
  for (auto& [address, w] : Words()) {
    if (w.waiters > 0 && !w.holder_known) Blame(twin, w, kNoThread);
  }
}

absl::Status InstallFutexTrap() {
  const TextRange text = TextOfObjectNamed("libgomp.so");
  if (text.begin == 0) {
    return absl::FailedPreconditionError(
        "libgomp.so.1 is not loaded: the program is not an OpenMP program, or it loads libgomp "
        "later (dlopen), which stackcheck exec cannot follow");
  }
  if (text.end - text.begin >= (std::uint64_t{1} << 32)) {
    return absl::FailedPreconditionError("libgomp's text is 4 GiB or more");
  }
  if (absl::Status s = ClaimSignal(SIGSYS, &OnSigsys); !s.ok()) return s;
  // The instruction pointer is two 32-bit words to the filter. The text may
  // cross one 4 GiB boundary (ASLR places it anywhere): [begin, end) is then
  // the end of one high word's range and the start of the next.
  const auto begin_high = static_cast<std::uint32_t>(text.begin >> 32);
  const auto begin_low = static_cast<std::uint32_t>(text.begin);
  const auto end_high = static_cast<std::uint32_t>(text.end >> 32);
  const auto end_low = static_cast<std::uint32_t>(text.end);
  constexpr std::uint32_t kIpLow = offsetof(seccomp_data, instruction_pointer);
  constexpr std::uint32_t kIpHigh = kIpLow + 4;
  // futex from [begin, end) traps; everything else goes through.
  sock_filter filter[] = {
      /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
      /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      /* 2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      /* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_futex, 1, 0),
      /* 5 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      /* 6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kIpHigh),
      /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, begin_high, 0, 3),  // no: 11
      /* 8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kIpLow),
      /* 9 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, begin_low, 0, 5),  // below begin: 15
      // At or above begin: within one high word, check the end (12); across
      // a boundary, the rest of this high word is text (14).
      /* 10 */ BPF_STMT(BPF_JMP | BPF_JA, begin_high == end_high ? 1u : 3u),
      /* 11 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, end_high, 0, 3),  // no: 15
      /* 12 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kIpLow),
      /* 13 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, end_low, 1, 0),  // at or past end: 15
      /* 14 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
      /* 15 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("the kernel refused the seccomp filter that makes libgomp's futexes "
                     "visible: ",
                     std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace stackcheck::program
