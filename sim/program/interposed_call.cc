#include "sim/program/interposed_call.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "sim/program/callback_call.h"
#include "sim/program/loaded_text.h"

namespace stackcheck::program {
namespace {

bool FromThisLibrary(const void* return_address) {
  static const TextRange text = TextHolding(reinterpret_cast<const void*>(&FromThisLibrary));
  return text.Contains(return_address);
}

thread_local bool t_own_call = false;

}  // namespace

OwnCallScope::OwnCallScope() : outer_(t_own_call) { t_own_call = true; }
OwnCallScope::~OwnCallScope() { t_own_call = outer_; }

bool IsProgramCall(const void* caller) {
  return !t_own_call && Controlled() && HasTwin() && !OnSimulatorThread() &&
         !FromThisLibrary(caller);
}

bool IsProgramSyncCall(const void* caller) {
  return IsProgramCall(caller) || (Controlled() && InStreamCallback() &&
                                   (!FromThisLibrary(caller) || IsProgramCallbackReturn(caller)));
}

std::uint32_t WaitQueueOf(Twin& twin, const void* object, const char* kind) {
  static auto* queues = new std::map<const void*, std::uint32_t>;
  auto [it, fresh] = queues->try_emplace(object, 0);
  if (fresh) it->second = twin.host.NewWaitQueue(absl::StrCat(kind, " #", queues->size()));
  return it->second;
}

}  // namespace stackcheck::program
