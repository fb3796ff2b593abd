#include "sim/monitors/driver_call_in_callback.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sim/driver_api.h"
#include "sim/monitors/testing.h"

namespace stackcheck::sim {
namespace {

using ::testing::HasSubstr;
using namespace ::stackcheck::sim::monitor_testing;

TEST(DriverCallInCallbackTest, HostThreadsMayCallTheDriver) {
  Trace t;
  t.Add(kCb, EventKind::kCallbackStart, payload::StreamWork{0, 7})
      .Add(kCb, EventKind::kCallbackEnd, payload::StreamWork{0, 7})
      .Add(kCb, EventKind::kHostFnStart, payload::StreamWork{0, 8})
      .Add(kCb, EventKind::kHostFnEnd, payload::StreamWork{0, 8})
      .Add(kT1, EventKind::kDriverCall, payload::Call{DriverCall::kMemFree})
      .Add(kCb, EventKind::kMutexLock, payload::Mutex{0});  // locks are not driver calls
  DriverCallInCallbackMonitor m;
  EXPECT_EQ(Feed(m, t, FakeSimView{}), std::nullopt);
}

TEST(DriverCallInCallbackTest, FreeInsideACallback) {
  Trace t;
  t.Add(kCb, EventKind::kCallbackStart, payload::StreamWork{0, 7})
      .Add(kCb, EventKind::kDriverCall,
           payload::Call{DriverCall::kMemFree, 0, CuResult::kNotPermitted});
  DriverCallInCallbackMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->property, "no-driver-call-in-callback");
  EXPECT_EQ(v->event_index, 1u);
  EXPECT_EQ(v->message,
            "CB called cuMemFree from callback 7 of stream 0 (started at event "
            "0); it returned 800 NOT_PERMITTED");
}

TEST(DriverCallInCallbackTest, BlockingCallInsideAHostFunction) {
  Trace t;
  t.Add(kCb, EventKind::kHostFnStart, payload::StreamWork{2, 1})
      .Add(kCb, EventKind::kDriverCallBlock, payload::Call{DriverCall::kStreamSynchronize});
  DriverCallInCallbackMonitor m;
  auto v = Feed(m, t, FakeSimView{});
  ASSERT_TRUE(v.has_value());
  EXPECT_THAT(v->message, HasSubstr("cuStreamSynchronize from host function 1 "
                                    "of stream 2"));
  EXPECT_THAT(v->message, HasSubstr("blocked"));
}

TEST(DriverCallInCallbackTest, EngineMarkAloneIsEnough) {
  Trace t;
  t.Add(kCb, EventKind::kDriverCall, payload::Call{DriverCall::kLaunchKernel, kCallFromCallback});
  DriverCallInCallbackMonitor m;
  EXPECT_TRUE(Feed(m, t, FakeSimView{}).has_value());
}

}  // namespace
}  // namespace stackcheck::sim
