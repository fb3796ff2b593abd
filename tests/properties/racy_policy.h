// A deliberately racy stacks cache, for tests only: V2's design, except that
// run reads the cached block and grows it *before* taking the stacks lock,
// then launches on it under the lock. Two threads can thus free and replace
// the block another thread is about to launch on, or has a kernel running on:
// stack overlaps, uses after free, and a data race on the block's pointer and
// size, which the block declares shared under the stacks lock (core/shared.h).
// It is not in the policy registry: the campaign never sees it.
#ifndef STACKCHECK_TESTS_PROPERTIES_RACY_POLICY_H_
#define STACKCHECK_TESTS_PROPERTIES_RACY_POLICY_H_

#include "core/policies/registry.h"

namespace stackcheck::properties::testing {

const PolicyInfo& RacyGrowPolicy();

}  // namespace stackcheck::properties::testing

#endif  // STACKCHECK_TESTS_PROPERTIES_RACY_POLICY_H_
