// RUN: %shardc-opt %s -split-input-file -verify-diagnostics
// One case per kern verifier error.

func.func @weight_type() {
  // expected-error @+1 {{'kern.weight' op value type 'tensor<3xf32>' does not match 'memref<4xf32>'}}
  %w = kern.weight {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : memref<4xf32>
  return
}

// -----

func.func @weight_element_type() {
  // expected-error @+1 {{'kern.weight' op value type 'tensor<2xi32>' does not match 'memref<2xi64>'}}
  %w = kern.weight {value = dense<[1, 2]> : tensor<2xi32>} : memref<2xi64>
  return
}

// -----

func.func @view_count(%x: memref<2x3xf32>) {
  // expected-error @+1 {{'kern.view' op cannot view 'memref<2x3xf32>' as 'memref<7xf32>'}}
  %v = kern.view %x : memref<2x3xf32> to memref<7xf32>
  return
}

// -----

func.func @view_element_type(%x: memref<2x3xf32>) {
  // expected-error @+1 {{'kern.view' op cannot view 'memref<2x3xf32>' as 'memref<6xi32>'}}
  %v = kern.view %x : memref<2x3xf32> to memref<6xi32>
  return
}

// -----

func.func @dynamic_buffer(%x: memref<?xf32>) {
  // expected-error @+1 {{'kern.view' op operand #0 must be statically shaped memref}}
  %v = kern.view %x : memref<?xf32> to memref<6xf32>
  return
}

// -----

func.func @layout_count(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.map' op has 1 layouts for 2 operands}}
  kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @layout_length(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.map' op layout #1 must be [offset, one stride per dim]}}
  kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1, 1>], shape = array<i64: 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @layout_not_an_array(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.map' op layout #0 must be [offset, one stride per dim]}}
  kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [[0, 1], array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @out_of_bounds_high(%x: memref<2x3xf32>, %y: memref<2x3xf32>) {
  // Offset 1 with dense strides reads one element past the end.
  // expected-error @+1 {{'kern.map' op operand #0 is accessed at [1, 6], outside its 6 elements}}
  kern.map ins(%x : memref<2x3xf32>) outs(%y : memref<2x3xf32>) attributes {layouts = [array<i64: 1, 3, 1>, array<i64: 0, 3, 1>], shape = array<i64: 2, 3>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @out_of_bounds_negative(%x: memref<2x3xf32>, %y: memref<2x3xf32>) {
  // A negative stride from offset 4 reaches index -1.
  // expected-error @+1 {{'kern.map' op operand #1 is accessed at [-1, 4], outside its 6 elements}}
  kern.map ins(%x : memref<2x3xf32>) outs(%y : memref<2x3xf32>) attributes {layouts = [array<i64: 0, 3, 1>, array<i64: 4, -3, -1>], shape = array<i64: 2, 3>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @empty_space_is_not_bounds_checked(%x: memref<2x3xf32>, %y: memref<2x3xf32>) {
  // A zero-sized dim means no access happens: any layout is accepted.
  kern.map ins(%x : memref<2x3xf32>) outs(%y : memref<2x3xf32>) attributes {layouts = [array<i64: 100, 3, 1>, array<i64: -5, 3, 1>], shape = array<i64: 0, 3>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @body_arg_count(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.map' op body takes 2 arguments for 1 inputs}}
  kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%a: f32, %b: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @body_arg_type(%x: memref<4xf16>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.map' op body argument type 'f32' should be 'f16'}}
  kern.map ins(%x : memref<4xf16>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @body_arg_signedness(%x: memref<4xui8>, %y: memref<4xi8>) {
  // Bodies are signless: a ui8 buffer is read as i8.
  // expected-error @+1 {{'kern.map' op body argument type 'ui8' should be 'i8'}}
  kern.map ins(%x : memref<4xui8>) outs(%y : memref<4xi8>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%a: ui8):
    %c = arith.constant 0 : i8
    kern.yield %c : i8
  }
  return
}

// -----

func.func @yield_count(%x: memref<4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.map' op body yields 2 values for 1 outputs}}
  kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%a: f32):
    kern.yield %a, %a : f32, f32
  }
  return
}

// -----

func.func @yield_type(%x: memref<4xf32>, %y: memref<4xi32>) {
  // expected-error @+1 {{'kern.map' op body yields 'f32' for an output of 'i32'}}
  kern.map ins(%x : memref<4xf32>) outs(%y : memref<4xi32>) attributes {layouts = [array<i64: 0, 1>, array<i64: 0, 1>], shape = array<i64: 4>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @reduce_kind(%x: memref<4x5xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.reduce' op unknown reduction kind 'prod'}}
  kern.reduce "prod" ins(%x : memref<4x5xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 5>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @reduce_output_stride(%x: memref<4x5xf32>, %y: memref<20xf32>) {
  // expected-error @+1 {{'kern.reduce' op output stride along reduce dim 1 must be 0}}
  kern.reduce "sum" ins(%x : memref<4x5xf32>) outs(%y : memref<20xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 5, 1>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 5>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @reduce_dim_range(%x: memref<4x5xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.reduce' op reduce dim 2 out of range}}
  kern.reduce "max" ins(%x : memref<4x5xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 2>, shape = array<i64: 4, 5>} {
  ^bb0(%a: f32):
    kern.yield %a : f32
  }
  return
}

// -----

func.func @reduce_outputs(%x: memref<4x5xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.reduce' op has one output}}
  kern.reduce "sum" ins(%x : memref<4x5xf32>) outs(%y, %y : memref<4xf32>, memref<4xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 1, 0>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 5>} {
  ^bb0(%a: f32):
    kern.yield %a, %a : f32, f32
  }
  return
}

// -----

func.func @reduce_body(%x: memref<4x5xf32>, %y: memref<4xf32>) {
  // The reduction shares the map's checks.
  // expected-error @+1 {{'kern.reduce' op body yields 0 values for 1 outputs}}
  kern.reduce "sum" ins(%x : memref<4x5xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 5>} {
  ^bb0(%a: f32):
    kern.yield
  }
  return
}

// -----

func.func @matmul_rank(%a: memref<8xf32>, %b: memref<8x4xf32>, %y: memref<4xf32>) {
  // expected-error @+1 {{'kern.matmul' op a, b and y need the same rank >= 2}}
  kern.matmul %a, %b into %y : memref<8xf32>, memref<8x4xf32> into memref<4xf32>
  return
}

// -----

func.func @matmul_mixed_rank(%a: memref<2x3x8xf32>, %b: memref<8x4xf32>, %y: memref<2x3x4xf32>) {
  // expected-error @+1 {{'kern.matmul' op a, b and y need the same rank >= 2}}
  kern.matmul %a, %b into %y : memref<2x3x8xf32>, memref<8x4xf32> into memref<2x3x4xf32>
  return
}

// -----

func.func @matmul_inner(%a: memref<3x8xf32>, %b: memref<7x4xf32>, %y: memref<3x4xf32>) {
  // expected-error @+1 {{'kern.matmul' op shapes do not multiply: 'memref<3x8xf32>' x 'memref<7x4xf32>' into 'memref<3x4xf32>'}}
  kern.matmul %a, %b into %y : memref<3x8xf32>, memref<7x4xf32> into memref<3x4xf32>
  return
}

// -----

func.func @matmul_result(%a: memref<3x8xf32>, %b: memref<8x4xf32>, %y: memref<4x3xf32>) {
  // expected-error @+1 {{'kern.matmul' op shapes do not multiply}}
  kern.matmul %a, %b into %y : memref<3x8xf32>, memref<8x4xf32> into memref<4x3xf32>
  return
}

// -----

func.func @matmul_trans_b(%a: memref<3x8xf32>, %b: memref<8x4xf32>, %y: memref<3x4xf32>) {
  // With trans_b, b is read as 4x8: k = 8 but b's k = 4.
  // expected-error @+1 {{'kern.matmul' op shapes do not multiply}}
  kern.matmul %a, %b into %y {trans_b = true} : memref<3x8xf32>, memref<8x4xf32> into memref<3x4xf32>
  return
}

// -----

func.func @matmul_batch(%a: memref<2x3x8xf32>, %b: memref<3x8x4xf32>, %y: memref<2x3x4xf32>) {
  // expected-error @+1 {{'kern.matmul' op batch dim 0 does not broadcast}}
  kern.matmul %a, %b into %y : memref<2x3x8xf32>, memref<3x8x4xf32> into memref<2x3x4xf32>
  return
}

// -----

func.func @yield_outside_kernel() {
  // expected-error @+1 {{'kern.yield' op expects parent op to be one of 'kern.map, kern.reduce'}}
  kern.yield
}

// -----

func.func @index_dim(%y: memref<4xi64>) {
  kern.map outs(%y : memref<4xi64>) attributes {layouts = [array<i64: 0, 1>], shape = array<i64: 4>} {
    // expected-error @+1 {{'kern.index' op dim 1 outside the kernel's 1-d iteration space}}
    %i = kern.index 1
    kern.yield %i : i64
  }
  return
}

// -----

func.func @matmul_bias(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<7xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'kern.matmul' op bias needs y's rank and element type}}
  kern.matmul %a, %b bias %c into %y : memref<4x8xf32>, memref<8x16xf32>, memref<7xf32> into memref<4x16xf32>
  return
}

// -----

func.func @matmul_types(%a: memref<4x8xi32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'kern.matmul' op a, b and y need one element type}}
  kern.matmul %a, %b into %y : memref<4x8xi32>, memref<8x16xf32> into memref<4x16xf32>
  return
}

// -----

func.func @conv_channels(%x: memref<1x3x8x8xf32>, %w: memref<4x2x3x3xf32>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{'kern.conv' op channels do not match}}
  kern.conv %x, %w into %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : memref<1x3x8x8xf32>, memref<4x2x3x3xf32> into memref<1x4x6x6xf32>
  return
}

// -----

func.func @conv_attrs(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{'kern.conv' op needs 2 strides and dilations and 4 pads}}
  kern.conv %x, %w into %y {strides = array<i64: 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : memref<1x3x8x8xf32>, memref<4x3x3x3xf32> into memref<1x4x6x6xf32>
  return
}

// -----

func.func @matmul_epilogue(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'kern.matmul' op epilogue must be none, relu, gelu or gelu_tanh, not 'silu'}}
  kern.matmul %a, %b into %y {epilogue = "silu"} : memref<4x8xf32>, memref<8x16xf32> into memref<4x16xf32>
  return
}

// -----

func.func @matmul_residual_type(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %r: memref<1x16xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'kern.matmul' op residual 'memref<1x16xf32>' must have y's type 'memref<4x16xf32>'}}
  kern.matmul %a, %b residual %r into %y : memref<4x8xf32>, memref<8x16xf32> residual memref<1x16xf32> into memref<4x16xf32>
  return
}

// -----

func.func @matmul_residual_activation(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %r: memref<4x16xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'kern.matmul' op a residual comes only with epilogue 'none'}}
  kern.matmul %a, %b residual %r into %y {epilogue = "relu"} : memref<4x8xf32>, memref<8x16xf32> residual memref<4x16xf32> into memref<4x16xf32>
  return
}

// -----

func.func @matmul_residual_full_bias(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>, %r: memref<4x16xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'kern.matmul' op with a residual the bias must be a row}}
  kern.matmul %a, %b bias %c residual %r into %y : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32> residual memref<4x16xf32> into memref<4x16xf32>
  return
}

// -----

func.func @matmul_beta_epilogue(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %y: memref<4x16xf32>) {
  // expected-error @+1 {{'kern.matmul' op beta comes only without epilogue and residual}}
  kern.matmul %a, %b into %y {beta = 1.0 : f32, epilogue = "gelu_tanh"} : memref<4x8xf32>, memref<8x16xf32> into memref<4x16xf32>
  return
}

// -----

func.func @conv_residual(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %r: memref<1x4x8x8xf32>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{'kern.conv' op residual 'memref<1x4x8x8xf32>' must have y's type 'memref<1x4x6x6xf32>'}}
  kern.conv %x, %w residual %r into %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : memref<1x3x8x8xf32>, memref<4x3x3x3xf32> residual memref<1x4x8x8xf32> into memref<1x4x6x6xf32>
  return
}

// -----

func.func @conv_epilogue(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{'kern.conv' op epilogue must be none, relu, gelu, gelu_tanh or hard_swish, not 'tanh'}}
  kern.conv %x, %w into %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, epilogue = "tanh"} : memref<1x3x8x8xf32>, memref<4x3x3x3xf32> into memref<1x4x6x6xf32>
  return
}

// -----

// Channels-last x: its type is [N, H, W, C], so a type that is NCHW-shaped
// has the wrong channel count.
func.func @conv_channels_last(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{'kern.conv' op channels do not match}}
  kern.conv %x, %w into %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, x_channels_last} : memref<1x3x8x8xf32>, memref<4x3x3x3xf32> into memref<1x4x6x6xf32>
  return
}

// -----

func.func @conv_transposed_channels_last(%x: memref<1x8x8x4xf32>, %w: memref<4x3x2x2xf32>, %y: memref<1x3x16x16xf32>) {
  // expected-error @+1 {{'kern.conv' op a transposed convolution has no channels-last operands}}
  kern.conv %x, %w into %y {strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, transposed, x_channels_last} : memref<1x8x8x4xf32>, memref<4x3x2x2xf32> into memref<1x3x16x16xf32>
  return
}
