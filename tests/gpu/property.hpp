#pragma once
// Randomised properties that run under RapidCheck where it is installed and as a seeded loop of
// 100 cases where it is not (the GPU machine). A property body receives a 64-bit seed and draws
// everything from it, so a failure prints the seed that reproduces it.
//   QALG_PROPERTY(Suite, Name) { ... PROP_ASSERT(cond); PROP_ASSERT_EQ(a, b); }
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#ifdef QALG_HAVE_RAPIDCHECK
#include <rapidcheck/gtest.h>

#define QALG_PROPERTY(suite, name)                                   \
  static void suite##_##name##_body(uint64_t seed);                  \
  RC_GTEST_PROP(suite, name, (uint64_t seed)) {                      \
    suite##_##name##_body(seed);                                     \
  }                                                                  \
  static void suite##_##name##_body(uint64_t seed)
#define PROP_ASSERT(cond) RC_ASSERT(cond)
#define PROP_ASSERT_EQ(a, b) RC_ASSERT((a) == (b))
#else
#define QALG_PROPERTY(suite, name)                                          \
  static void suite##_##name##_body(uint64_t seed);                         \
  TEST(suite, name) {                                                       \
    for (uint64_t s = 1; s <= 100; ++s) {                                   \
      uint64_t seed = s * 0x9E3779B97F4A7C15ull;                            \
      SCOPED_TRACE("seed " + std::to_string(seed));                         \
      suite##_##name##_body(seed);                                          \
      if (::testing::Test::HasFatalFailure()) return;                       \
    }                                                                       \
  }                                                                         \
  static void suite##_##name##_body(uint64_t seed)
#define PROP_ASSERT(cond) ASSERT_TRUE(cond)
#define PROP_ASSERT_EQ(a, b) ASSERT_EQ(a, b)
#endif
