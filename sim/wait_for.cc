// The wait-for graph of a stuck execution, and the deadlock report built from
// it: a cycle through host threads, mutexes, driver calls, streams and the
// callback thread, e.g. "T0 waits in cuMemFree for gpu:s0 to drain; gpu:s0
// waits for callback #1 on callback; callback waits for mutex 'stacks' held
// by T0".
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sim/scheduler.h"

namespace stackcheck::sim {

void Scheduler::WaitEdgesOf(ActorId actor, std::vector<WaitEdge>* out) {
  const Actor& a = actors_[actor];
  if (a.state == ActorState::kFinished) return;
  if (a.kind == ActorKind::kGpuStream) {
    gpu_->StreamWaitEdges(a.index, out);
    return;
  }
  if (a.state != ActorState::kBlocked) return;
  switch (a.wait.kind) {
    case WaitKind::kNone:
    case WaitKind::kCallbackWork:
    case WaitKind::kRest:  // picked as soon as nothing else can move
      return;
    case WaitKind::kMutex: {
      const MutexState& m = mutexes_[a.wait.object];
      std::string text = absl::StrCat(ActorName(actor), " waits for mutex '", m.name, "' held by ",
                                      ActorName(m.owner));
      if (m.owner == actor) text += " itself (relock)";
      if (m.owner != kNoActor && actors_[m.owner].state == ActorState::kFinished) {
        text += ", which has finished";
      }
      out->push_back(WaitEdge{m.owner, std::move(text)});
      return;
    }
    case WaitKind::kWakeup: {
      const WaitQueueState& q = wait_queues_[a.wait.object];
      std::string text = absl::StrCat(ActorName(actor), " waits on ", q.name);
      if (q.blamed == kNoActor) {
        text += " (nobody known to hold it)";
      } else {
        absl::StrAppend(&text, " held by ", ActorName(q.blamed));
        if (q.blamed == actor) text += " itself";
      }
      out->push_back(WaitEdge{q.blamed, std::move(text)});
      return;
    }
    case WaitKind::kJoin:
      out->push_back(WaitEdge{a.wait.object, absl::StrCat(ActorName(actor), " waits to join ",
                                                          ActorName(a.wait.object))});
      return;
    case WaitKind::kStreamIdle:
    case WaitKind::kAllStreamsIdle:
    case WaitKind::kAllStreamsIdleOrFault:
    case WaitKind::kEvent:
      gpu_->DeviceWaitEdges(actor, a.wait, out);
      return;
  }
}

std::string Scheduler::DescribeDeadlock(std::vector<WaitLink>* links, bool* cyclic) {
  // Depth-first search from each blocked fiber for a cycle; the first one
  // found (in actor order, so deterministic) is the report.
  const std::size_t n = actor_count_;
  std::vector<std::vector<WaitEdge>> edges(n);
  for (ActorId id = 0; id < n; ++id) WaitEdgesOf(id, &edges[id]);

  std::vector<int> color(n, 0);  // 0 unvisited, 1 on the path, 2 done
  std::vector<const WaitEdge*> path;
  std::vector<ActorId> path_nodes;
  std::vector<std::string> cycle;

  struct Frame {
    ActorId node;
    std::size_t next_edge;
  };
  for (ActorId root = 0; root < n && cycle.empty(); ++root) {
    if (actors_[root].state != ActorState::kBlocked || color[root] != 0) continue;
    std::vector<Frame> stack{{root, 0}};
    color[root] = 1;
    path_nodes = {root};
    path.clear();
    while (!stack.empty() && cycle.empty()) {
      Frame& f = stack.back();
      if (f.next_edge == edges[f.node].size()) {
        color[f.node] = 2;
        stack.pop_back();
        path_nodes.pop_back();
        if (!path.empty()) path.pop_back();
        continue;
      }
      const WaitEdge& e = edges[f.node][f.next_edge++];
      if (e.to >= n) continue;
      if (color[e.to] == 1) {
        // The cycle runs from e.to along the path back to e.
        auto it = std::find(path_nodes.begin(), path_nodes.end(), e.to);
        const std::size_t start = it - path_nodes.begin();
        for (std::size_t i = start; i < path.size(); ++i) {
          cycle.push_back(path[i]->text);
          links->push_back(WaitLink{path_nodes[i], path[i]->text});
        }
        cycle.push_back(e.text);
        links->push_back(WaitLink{f.node, e.text});
        break;
      }
      if (color[e.to] == 0) {
        color[e.to] = 1;
        path.push_back(&e);
        path_nodes.push_back(e.to);
        stack.push_back(Frame{e.to, 0});
      }
    }
  }
  if (!cycle.empty()) {
    *cyclic = true;
    return absl::StrCat("deadlock: ", absl::StrJoin(cycle, "; "));
  }
  // No cycle: someone waits for an actor that will never act (e.g. a mutex
  // held by a finished thread). Report every blocked actor's wait.
  std::vector<std::string> waits;
  for (ActorId id = 0; id < n; ++id) {
    for (const WaitEdge& e : edges[id]) {
      waits.push_back(e.text);
      links->push_back(WaitLink{id, e.text});
    }
  }
  if (waits.empty()) waits.push_back("no actor can run");
  return absl::StrCat("deadlock (no cycle): ", absl::StrJoin(waits, "; "));
}

}  // namespace stackcheck::sim
