//===- FakeModel.cpp - a hand-written model for the CLI tests -------------===//
//
// Defines shardc_model_program as generated code does, over the test program
// of FakeProgram.h; linked with libshardc_main.a and libshardc_rt.a exactly
// like a compiled model.
//
//===----------------------------------------------------------------------===//
#include "runtime/test/FakeProgram.h"

static shardc::testing::FakeProgram fake;

extern "C" const shardc_program shardc_model_program = fake.program;
