// RUN: %shardc-translate --kern-to-cpp %s --split-input-file --verify-diagnostics

// Two programs claim rank 1.
module {
  func.func @a() attributes {kern.ranks = array<i64: 0, 1>} {
    return
  }
  // expected-error @+1 {{rank 1 is served by both @a and @b}}
  func.func @b() attributes {kern.ranks = array<i64: 1>} {
    return
  }
}

// -----

// Rank 1 of 3 has no program.
// expected-error @+1 {{rank 1 of 3 has no program}}
module {
  func.func @a() attributes {kern.ranks = array<i64: 0, 2>} {
    return
  }
}

// -----

// Programs for some ranks, and a function without any.
module {
  func.func @a() attributes {kern.ranks = array<i64: 0>} {
    return
  }
  // expected-error @+1 {{function @helper has no 'kern.ranks' in a module of rank programs}}
  func.func @helper() {
    return
  }
}

// -----

// Neither rank programs nor @main.
// expected-error @+1 {{no program to emit: a func.func @main, or functions with 'kern.ranks'}}
module {
  func.func @other() {
    return
  }
}

// -----

module {
  // expected-error @+1 {{rank -1 of program @a is outside [0, 65536)}}
  func.func @a() attributes {kern.ranks = array<i64: -1>} {
    return
  }
}

// -----

module {
  // expected-error @+1 {{program @a serves no rank}}
  func.func @a() attributes {kern.ranks = array<i64>} {
    return
  }
}
