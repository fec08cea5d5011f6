//===- FakeModel.cpp - a hand-written model for the CLI tests -------------===//
//
// Defines shardc_model_program as generated code does, over the test program
// of FakeProgram.h; linked with libshardc_main.a and libshardc_rt.a exactly
// like a compiled model. SHARDC_FAKE_TARGETS picks the code it carries (the
// plan's target mask; CPU code only by default); SHARDC_FAKE_DYNAMIC makes
// it the program with dynamic dims (FakeDynamicProgram, CPU code).
//
//===----------------------------------------------------------------------===//
#include "runtime/test/FakeProgram.h"

#ifndef SHARDC_FAKE_TARGETS
#define SHARDC_FAKE_TARGETS 1
#endif

#ifdef SHARDC_FAKE_DYNAMIC
static shardc::testing::FakeDynamicProgram fake;
#else
static shardc::testing::FakeProgram
    fake(false, shardc::testing::fakePlan(SHARDC_FAKE_TARGETS));
#endif

extern "C" const shardc_program shardc_model_program = fake.program;
