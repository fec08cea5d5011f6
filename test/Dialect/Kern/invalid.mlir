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
  // expected-error @+1 {{'kern.reduce' op unknown reduction kind 'avg'}}
  kern.reduce "avg" ins(%x : memref<4x5xf32>) outs(%y : memref<4xf32>) attributes {layouts = [array<i64: 0, 5, 1>, array<i64: 0, 1, 0>], reduce_dims = array<i64: 1>, shape = array<i64: 4, 5>} {
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

// -----
// Runtime kernels: what the runtime would misread is rejected.

func.func @softmax_int(%x: memref<2x10xi32>) {
  // expected-error @+1 {{'kern.softmax' op needs f32, f64, f16 or bf16 elements, not 'i32'}}
  kern.softmax %x into %x {axis = 1 : i64} : memref<2x10xi32> into memref<2x10xi32>
  return
}

// -----

func.func @softmax_types(%x: memref<2x10xf32>, %y: memref<2x10xf16>) {
  // expected-error @+1 {{'kern.softmax' op x and y need one type, not 'memref<2x10xf32>' and 'memref<2x10xf16>'}}
  kern.softmax %x into %y {axis = 1 : i64} : memref<2x10xf32> into memref<2x10xf16>
  return
}

// -----

func.func @softmax_axis(%x: memref<2x10xf32>) {
  // expected-error @+1 {{'kern.softmax' op axis 2 is out of range for rank 2}}
  kern.softmax %x into %x {axis = 2 : i64} : memref<2x10xf32> into memref<2x10xf32>
  return
}

// -----

func.func @layer_norm_int(%x: memref<2x8xi8>, %s: memref<8xi8>) {
  // expected-error @+1 {{'kern.layer_norm' op needs f32, f64, f16 or bf16 elements, not 'i8'}}
  kern.layer_norm %x, %s into %x {axis = 1 : i64, epsilon = 1.0e-5 : f32} : memref<2x8xi8>, memref<8xi8> into memref<2x8xi8>
  return
}

// -----

func.func @layer_norm_types(%x: memref<2x8xf32>, %s: memref<8xf32>, %y: memref<16xf32>) {
  // expected-error @+1 {{'kern.layer_norm' op x and y need one type}}
  kern.layer_norm %x, %s into %y {axis = 1 : i64, epsilon = 1.0e-5 : f32} : memref<2x8xf32>, memref<8xf32> into memref<16xf32>
  return
}

// -----

// The axis may be the rank (an empty normalized shape), not beyond.
func.func @layer_norm_axis(%x: memref<2x8xf32>, %s: memref<1xf32>) {
  // expected-error @+1 {{'kern.layer_norm' op axis 3 is out of range for rank 2}}
  kern.layer_norm %x, %s into %x {axis = 3 : i64, epsilon = 1.0e-5 : f32} : memref<2x8xf32>, memref<1xf32> into memref<2x8xf32>
  return
}

// -----

func.func @layer_norm_scale(%x: memref<2x8xf32>, %s: memref<8xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'kern.layer_norm' op scale and bias need 8 elements of 'f32', not 'memref<4xf32>'}}
  kern.layer_norm %x, %s bias %b into %x {axis = 1 : i64, epsilon = 1.0e-5 : f32} : memref<2x8xf32>, memref<8xf32>, memref<4xf32> into memref<2x8xf32>
  return
}

// -----

func.func @layer_norm_stats(%x: memref<2x8xf16>, %s: memref<8xf16>, %m: memref<2xf16>) {
  // expected-error @+1 {{'kern.layer_norm' op mean and inv_std need one f32 per row (2), not 'memref<2xf16>'}}
  kern.layer_norm %x, %s into %x mean %m {axis = 1 : i64, epsilon = 1.0e-5 : f32} : memref<2x8xf16>, memref<8xf16> into memref<2x8xf16> mean memref<2xf16>
  return
}

// -----

func.func @gather_axis(%d: memref<3x10xf32>, %i: memref<5xi64>, %y: memref<5x10xf32>) {
  // expected-error @+1 {{'kern.gather' op axis -3 is out of range for rank 2}}
  kern.gather %d, %i into %y {axis = -3 : i64} : memref<3x10xf32>, memref<5xi64> into memref<5x10xf32>
  return
}

// -----

func.func @gather_indices(%d: memref<3x10xf32>, %i: memref<5xui32>, %y: memref<5x10xf32>) {
  // expected-error @+1 {{'kern.gather' op indices must be i32 or i64, not 'ui32'}}
  kern.gather %d, %i into %y {axis = 0 : i64} : memref<3x10xf32>, memref<5xui32> into memref<5x10xf32>
  return
}

// -----

func.func @gather_output(%d: memref<3x10xf32>, %i: memref<5xi64>, %y: memref<3x5xf32>) {
  // expected-error @+1 {{'kern.gather' op y must be 'memref<5x10xf32>', not 'memref<3x5xf32>'}}
  kern.gather %d, %i into %y {axis = 0 : i64} : memref<3x10xf32>, memref<5xi64> into memref<3x5xf32>
  return
}

// -----

func.func @arg_max_type(%x: memref<3x10xf32>, %y: memref<3xi32>) {
  // expected-error @+1 {{'kern.arg_max' op y must hold i64, not 'i32'}}
  kern.arg_max %x into %y {axis = 1 : i64} : memref<3x10xf32> into memref<3xi32>
  return
}

// -----

func.func @arg_max_axis(%x: memref<3x10xf32>, %y: memref<3xi64>) {
  // expected-error @+1 {{'kern.arg_max' op axis 2 is out of range for rank 2}}
  kern.arg_max %x into %y {axis = 2 : i64} : memref<3x10xf32> into memref<3xi64>
  return
}

// -----

func.func @arg_max_output(%x: memref<3x10xf32>, %y: memref<10xi64>) {
  // expected-error @+1 {{'kern.arg_max' op y needs one element per slice (3), not 'memref<10xi64>'}}
  kern.arg_max %x into %y {axis = 1 : i64} : memref<3x10xf32> into memref<10xi64>
  return
}

// -----

func.func @topk_axis(%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x4xi64>) {
  // expected-error @+1 {{'kern.topk' op axis 5 is out of range for rank 2}}
  kern.topk %x into %v, %i {axis = 5 : i64, k = 4 : i64} : memref<3x10xf32> into memref<3x4xf32>, memref<3x4xi64>
  return
}

// -----

func.func @topk_k(%x: memref<3x10xf32>, %v: memref<3x11xf32>, %i: memref<3x11xi64>) {
  // expected-error @+1 {{'kern.topk' op k = 11 is out of range [0, 10]}}
  kern.topk %x into %v, %i {axis = 1 : i64, k = 11 : i64} : memref<3x10xf32> into memref<3x11xf32>, memref<3x11xi64>
  return
}

// -----

func.func @topk_values(%x: memref<3x10xf32>, %v: memref<4x3xf32>, %i: memref<3x4xi64>) {
  // expected-error @+1 {{'kern.topk' op values must be 'memref<3x4xf32>', not 'memref<4x3xf32>'}}
  kern.topk %x into %v, %i {axis = 1 : i64, k = 4 : i64} : memref<3x10xf32> into memref<4x3xf32>, memref<3x4xi64>
  return
}

// -----

func.func @topk_indices(%x: memref<3x10xf32>, %v: memref<3x4xf32>, %i: memref<3x4xi32>) {
  // expected-error @+1 {{'kern.topk' op indices must be i64 of values' shape, not 'memref<3x4xi32>'}}
  kern.topk %x into %v, %i {axis = 1 : i64, k = 4 : i64} : memref<3x10xf32> into memref<3x4xf32>, memref<3x4xi32>
  return
}

// -----

func.func @cumsum_bool(%x: memref<3x10xi1>) {
  // expected-error @+1 {{'kern.cumsum' op needs numeric elements, not i1}}
  kern.cumsum %x into %x {axis = 1 : i64} : memref<3x10xi1> into memref<3x10xi1>
  return
}

// -----

func.func @cumsum_types(%x: memref<3x10xi32>, %y: memref<3x10xi64>) {
  // expected-error @+1 {{'kern.cumsum' op x and y need one type}}
  kern.cumsum %x into %y {axis = 1 : i64} : memref<3x10xi32> into memref<3x10xi64>
  return
}

// -----

func.func @cumsum_axis(%x: memref<3x10xf32>) {
  // expected-error @+1 {{'kern.cumsum' op axis -3 is out of range for rank 2}}
  kern.cumsum %x into %x {axis = -3 : i64} : memref<3x10xf32> into memref<3x10xf32>
  return
}

// -----

func.func @trilu_rank(%x: memref<10xf32>) {
  // expected-error @+1 {{'kern.trilu' op needs rank >= 2, not 'memref<10xf32>'}}
  kern.trilu %x into %x : memref<10xf32> into memref<10xf32>
  return
}

// -----

func.func @trilu_types(%x: memref<3x10xf32>, %y: memref<10x3xf32>) {
  // expected-error @+1 {{'kern.trilu' op x and y need one type}}
  kern.trilu %x into %y : memref<3x10xf32> into memref<10x3xf32>
  return
}

// -----

func.func @pool_kind(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf32>) {
  // expected-error @+1 {{'kern.pool' op kind must be max or average, not 'min'}}
  kern.pool %x into %y {kind = "min", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32>
  return
}

// -----

func.func @pool_rank(%x: memref<4x8xf32>, %y: memref<4x4xf32>) {
  // expected-error @+1 {{'kern.pool' op x and y need one rank >= 3, not 'memref<4x8xf32>' and 'memref<4x4xf32>'}}
  kern.pool %x into %y {kind = "max", kernel_shape = array<i64>, strides = array<i64>, dilations = array<i64>, pads = array<i64>} : memref<4x8xf32> into memref<4x4xf32>
  return
}

// -----

func.func @pool_types(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf16>) {
  // expected-error @+1 {{'kern.pool' op x and y need one numeric element type}}
  kern.pool %x into %y {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf16>
  return
}

// -----

func.func @pool_channels(%x: memref<1x4x8x8xf32>, %y: memref<1x3x4x4xf32>) {
  // expected-error @+1 {{'kern.pool' op x and y need the same batch and channel dims}}
  kern.pool %x into %y {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : memref<1x4x8x8xf32> into memref<1x3x4x4xf32>
  return
}

// -----

// Channels-last: x's type is [N, H, W, C], so an NCHW-shaped y has 8
// channels where x has 4.
func.func @pool_channels_last(%x: memref<1x8x8x4xf32>, %y: memref<1x4x4x4xf32>) {
  // expected-error @+1 {{'kern.pool' op x and y need the same batch and channel dims}}
  kern.pool %x into %y {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : memref<1x8x8x4xf32> into memref<1x4x4x4xf32>
  return
}

// -----

func.func @pool_sizes(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf32>) {
  // expected-error @+1 {{'kern.pool' op needs 2 kernel dims, strides and dilations and 4 pads}}
  kern.pool %x into %y {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32>
  return
}

// -----

func.func @pool_stride(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf32>) {
  // expected-error @+1 {{'kern.pool' op kernel dims, strides and dilations must be >= 1}}
  kern.pool %x into %y {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 0>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32>
  return
}

// -----

func.func @pool_pads(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf32>) {
  // expected-error @+1 {{'kern.pool' op pads must be >= 0}}
  kern.pool %x into %y {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 0>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32>
  return
}

// -----

func.func @pool_storage_order(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf32>) {
  // expected-error @+1 {{'kern.pool' op storage_order must be 0 or 1, not 2}}
  kern.pool %x into %y {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, storage_order = 2 : i64} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32>
  return
}

// -----

func.func @pool_average_indices(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf32>, %i: memref<1x4x4x4xi64>) {
  // expected-error @+1 {{'kern.pool' op indices come with max pooling only}}
  kern.pool %x into %y indices %i {kind = "average", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32> indices memref<1x4x4x4xi64>
  return
}

// -----

func.func @pool_channels_last_indices(%x: memref<1x8x8x4xf32>, %y: memref<1x4x4x4xf32>, %i: memref<1x4x4x4xi64>) {
  // expected-error @+1 {{'kern.pool' op indices do not come with channels-last buffers}}
  kern.pool %x into %y indices %i {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, channels_last} : memref<1x8x8x4xf32> into memref<1x4x4x4xf32> indices memref<1x4x4x4xi64>
  return
}

// -----

func.func @pool_indices(%x: memref<1x4x8x8xf32>, %y: memref<1x4x4x4xf32>, %i: memref<1x4x4x4xi32>) {
  // expected-error @+1 {{'kern.pool' op indices must be i64 of y's shape, not 'memref<1x4x4x4xi32>'}}
  kern.pool %x into %y indices %i {kind = "max", kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>} : memref<1x4x8x8xf32> into memref<1x4x4x4xf32> indices memref<1x4x4x4xi32>
  return
}

// -----

func.func @pad_mode(%x: memref<2x3xf32>, %y: memref<4x5xf32>) {
  // expected-error @+1 {{'kern.pad' op mode must be constant, reflect, edge or wrap, not 'symmetric'}}
  kern.pad %x into %y {mode = "symmetric", pads = array<i64: 1, 1, 1, 1>} : memref<2x3xf32> into memref<4x5xf32>
  return
}

// -----

func.func @pad_types(%x: memref<2x3xf32>, %y: memref<4x5xi32>) {
  // expected-error @+1 {{'kern.pad' op x and y need one element type}}
  kern.pad %x into %y {mode = "constant", pads = array<i64: 1, 1, 1, 1>} : memref<2x3xf32> into memref<4x5xi32>
  return
}

// -----

func.func @pad_value(%x: memref<2x3xf32>, %v: memref<2xf32>, %y: memref<4x5xf32>) {
  // expected-error @+1 {{'kern.pad' op value must be one element of 'f32', not 'memref<2xf32>'}}
  kern.pad %x value %v into %y {mode = "constant", pads = array<i64: 1, 1, 1, 1>} : memref<2x3xf32>, memref<2xf32> into memref<4x5xf32>
  return
}

// -----

func.func @pad_count(%x: memref<2x3xf32>, %y: memref<4x5xf32>) {
  // expected-error @+1 {{'kern.pad' op needs 4 pads and y of rank 2}}
  kern.pad %x into %y {mode = "constant", pads = array<i64: 1, 1>} : memref<2x3xf32> into memref<4x5xf32>
  return
}

// -----

func.func @pad_output(%x: memref<2x3xf32>, %y: memref<4x4xf32>) {
  // expected-error @+1 {{'kern.pad' op y dim 1 is 4, padding gives 5}}
  kern.pad %x into %y {mode = "constant", pads = array<i64: 1, 1, 1, 1>} : memref<2x3xf32> into memref<4x4xf32>
  return
}

// -----

// Cropping all of dim 0 leaves nothing to reflect.
func.func @pad_empty(%x: memref<2x3xf32>, %y: memref<1x3xf32>) {
  // expected-error @+1 {{'kern.pad' op cannot pad the empty dim 0 by reflect}}
  kern.pad %x into %y {mode = "reflect", pads = array<i64: -2, 0, 1, 0>} : memref<2x3xf32> into memref<1x3xf32>
  return
}

// -----

func.func @resize_mode(%x: memref<1x2x4x4xf32>, %y: memref<1x2x8x8xf32>) {
  // expected-error @+1 {{'kern.resize' op mode must be nearest, linear or cubic, not 'area'}}
  kern.resize %x into %y {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "area", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", cubic_coeff_a = -0.75 : f32, extrapolation_value = 0.0 : f32} : memref<1x2x4x4xf32> into memref<1x2x8x8xf32>
  return
}

// -----

func.func @resize_coordinates(%x: memref<1x2x4x4xf32>, %y: memref<1x2x8x8xf32>) {
  // expected-error @+1 {{'kern.resize' op unknown coordinate_transformation_mode 'tf_crop_and_resize'}}
  kern.resize %x into %y {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", nearest_mode = "floor", cubic_coeff_a = -0.75 : f32, extrapolation_value = 0.0 : f32} : memref<1x2x4x4xf32> into memref<1x2x8x8xf32>
  return
}

// -----

func.func @resize_nearest(%x: memref<1x2x4x4xf32>, %y: memref<1x2x8x8xf32>) {
  // expected-error @+1 {{'kern.resize' op unknown nearest_mode 'round'}}
  kern.resize %x into %y {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "round", cubic_coeff_a = -0.75 : f32, extrapolation_value = 0.0 : f32} : memref<1x2x4x4xf32> into memref<1x2x8x8xf32>
  return
}

// -----

func.func @resize_rank(%x: memref<1x2x4x4xf32>, %y: memref<2x8x8xf32>) {
  // expected-error @+1 {{'kern.resize' op x and y need one rank >= 1, not 'memref<1x2x4x4xf32>' and 'memref<2x8x8xf32>'}}
  kern.resize %x into %y {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", cubic_coeff_a = -0.75 : f32, extrapolation_value = 0.0 : f32} : memref<1x2x4x4xf32> into memref<2x8x8xf32>
  return
}

// -----

func.func @resize_types(%x: memref<1x2x4x4xi1>, %y: memref<1x2x8x8xi1>) {
  // expected-error @+1 {{'kern.resize' op x and y need one numeric element type}}
  kern.resize %x into %y {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", cubic_coeff_a = -0.75 : f32, extrapolation_value = 0.0 : f32} : memref<1x2x4x4xi1> into memref<1x2x8x8xi1>
  return
}

// -----

func.func @resize_scales(%x: memref<1x2x4x4xf32>, %y: memref<1x2x8x8xf32>) {
  // expected-error @+1 {{'kern.resize' op needs 4 scales, not 2}}
  kern.resize %x into %y {scales = array<f32: 2.0, 2.0>, mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", cubic_coeff_a = -0.75 : f32, extrapolation_value = 0.0 : f32} : memref<1x2x4x4xf32> into memref<1x2x8x8xf32>
  return
}

// -----

func.func @resize_empty(%x: memref<1x2x0x4xf32>, %y: memref<1x2x8x8xf32>) {
  // expected-error @+1 {{'kern.resize' op cannot resize an empty x to a non-empty y}}
  kern.resize %x into %y {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = "nearest", coordinate_transformation_mode = "half_pixel", nearest_mode = "floor", cubic_coeff_a = -0.75 : f32, extrapolation_value = 0.0 : f32} : memref<1x2x0x4xf32> into memref<1x2x8x8xf32>
  return
}

// -----

func.func @matmul_ref_types(%a: memref<4x8xi32>, %b: memref<8x16xi64>, %y: memref<4x16xi32>) {
  // expected-error @+1 {{'kern.matmul_ref' op a, b and y need one numeric element type}}
  kern.matmul_ref %a, %b into %y : memref<4x8xi32>, memref<8x16xi64> into memref<4x16xi32>
  return
}

// -----

func.func @matmul_ref_shapes(%a: memref<4x8xi32>, %b: memref<7x16xi32>, %y: memref<4x16xi32>) {
  // expected-error @+1 {{'kern.matmul_ref' op shapes do not multiply: inner dimensions 8 and 7 differ}}
  kern.matmul_ref %a, %b into %y : memref<4x8xi32>, memref<7x16xi32> into memref<4x16xi32>
  return
}

// -----

func.func @matmul_ref_batch(%a: memref<2x4x8xf64>, %b: memref<3x8x16xf64>, %y: memref<2x4x16xf64>) {
  // expected-error @+1 {{'kern.matmul_ref' op shapes do not multiply: batch dimensions 2 and 3 do not broadcast}}
  kern.matmul_ref %a, %b into %y : memref<2x4x8xf64>, memref<3x8x16xf64> into memref<2x4x16xf64>
  return
}

// -----

func.func @matmul_ref_output(%a: memref<4x8xf64>, %b: memref<8xf64>, %y: memref<4x8xf64>) {
  // expected-error @+1 {{'kern.matmul_ref' op shapes do not multiply: the output has 32 elements, expected 4}}
  kern.matmul_ref %a, %b into %y : memref<4x8xf64>, memref<8xf64> into memref<4x8xf64>
  return
}

// -----

func.func @matmul_integer_types(%a: memref<4x8xi16>, %b: memref<8x2xi8>, %z: memref<i8>, %y: memref<4x2xi32>) {
  // expected-error @+1 {{'kern.matmul_integer' op a, b and their zero points need 8-bit integers, not 'memref<4x8xi16>'}}
  kern.matmul_integer %a, %b zero_points %z, %z into %y : memref<4x8xi16>, memref<8x2xi8> zero_points memref<i8>, memref<i8> into memref<4x2xi32>
  return
}

// -----

func.func @matmul_integer_output(%a: memref<4x8xi8>, %b: memref<8x2xi8>, %z: memref<i8>, %y: memref<4x2xf32>) {
  // expected-error @+1 {{'kern.matmul_integer' op y must hold i32, not 'f32'}}
  kern.matmul_integer %a, %b zero_points %z, %z into %y : memref<4x8xi8>, memref<8x2xi8> zero_points memref<i8>, memref<i8> into memref<4x2xf32>
  return
}

// -----

func.func @matmul_integer_zero_point(%a: memref<4x8xui8>, %b: memref<8x2xi8>, %za: memref<3xui8>, %zb: memref<i8>, %y: memref<4x2xi32>) {
  // expected-error @+1 {{'kern.matmul_integer' op a_zero_point has 3 elements, expected 1, 4 or 4}}
  kern.matmul_integer %a, %b zero_points %za, %zb into %y : memref<4x8xui8>, memref<8x2xi8> zero_points memref<3xui8>, memref<i8> into memref<4x2xi32>
  return
}

// -----

func.func @qlinear_types(%a: memref<4x8xui8>, %s: memref<f32>, %z: memref<ui8>, %b: memref<8x2xui8>, %y: memref<4x2xi32>) {
  // expected-error @+1 {{'kern.qlinear_matmul' op a, b, y and the zero points need 8-bit integers, not 'memref<4x2xi32>'}}
  kern.qlinear_matmul %a[%s, %z], %b[%s, %z] into %y[%s, %z] : memref<4x8xui8>[memref<f32>, memref<ui8>], memref<8x2xui8>[memref<f32>, memref<ui8>] into memref<4x2xi32>[memref<f32>, memref<ui8>]
  return
}

// -----

func.func @qlinear_output_zero_point(%a: memref<4x8xui8>, %s: memref<f32>, %z: memref<ui8>, %b: memref<8x2xui8>, %y: memref<4x2xi8>) {
  // expected-error @+1 {{'kern.qlinear_matmul' op y_zero_point needs y's element type}}
  kern.qlinear_matmul %a[%s, %z], %b[%s, %z] into %y[%s, %z] : memref<4x8xui8>[memref<f32>, memref<ui8>], memref<8x2xui8>[memref<f32>, memref<ui8>] into memref<4x2xi8>[memref<f32>, memref<ui8>]
  return
}

// -----

func.func @qlinear_scale_type(%a: memref<4x8xui8>, %s: memref<f32>, %si: memref<i32>, %z: memref<ui8>, %b: memref<8x2xui8>, %y: memref<4x2xui8>) {
  // expected-error @+1 {{'kern.qlinear_matmul' op scales need f32, f64, f16 or bf16, not 'memref<i32>'}}
  kern.qlinear_matmul %a[%s, %z], %b[%si, %z] into %y[%s, %z] : memref<4x8xui8>[memref<f32>, memref<ui8>], memref<8x2xui8>[memref<i32>, memref<ui8>] into memref<4x2xui8>[memref<f32>, memref<ui8>]
  return
}

// -----

func.func @qlinear_scale_count(%a: memref<4x8xui8>, %s: memref<f32>, %s3: memref<3xf32>, %z: memref<ui8>, %b: memref<8x2xui8>, %y: memref<4x2xui8>) {
  // expected-error @+1 {{'kern.qlinear_matmul' op y_scale has 3 elements, expected 1, 4 or 4}}
  kern.qlinear_matmul %a[%s, %z], %b[%s, %z] into %y[%s3, %z] : memref<4x8xui8>[memref<f32>, memref<ui8>], memref<8x2xui8>[memref<f32>, memref<ui8>] into memref<4x2xui8>[memref<3xf32>, memref<ui8>]
  return
}

// -----

// (The custom form cannot spell no inputs.)
func.func @einsum_no_inputs(%y: memref<f32>) {
  // expected-error @+1 {{'kern.einsum' op needs at least one input}}
  "kern.einsum"(%y) {equation = "->"} : (memref<f32>) -> ()
  return
}

// -----

func.func @einsum_bool(%x: memref<4xi1>, %y: memref<i1>) {
  // expected-error @+1 {{'kern.einsum' op needs numeric elements, not i1}}
  kern.einsum "i->" ins(%x) into %y : memref<4xi1> into memref<i1>
  return
}

// -----

func.func @einsum_types(%x: memref<4xf32>, %y: memref<f64>) {
  // expected-error @+1 {{'kern.einsum' op inputs and y need one element type, not 'memref<4xf32>' and 'memref<f64>'}}
  kern.einsum "i->" ins(%x) into %y : memref<4xf32> into memref<f64>
  return
}

// -----

func.func @einsum_terms(%x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  // expected-error @+1 {{'kern.einsum' op equation 'ij,jk->ik' has 2 terms for 1 inputs}}
  kern.einsum "ij,jk->ik" ins(%x) into %y : memref<4x4xf32> into memref<4x4xf32>
  return
}

// -----

func.func @einsum_rank(%x: memref<2x4x4xf32>, %y: memref<4x4xf32>) {
  // expected-error @+1 {{'kern.einsum' op term 'ij' does not fit input #0 of rank 3}}
  kern.einsum "ij->ij" ins(%x) into %y : memref<2x4x4xf32> into memref<4x4xf32>
  return
}

// -----

func.func @attention_int(%q: memref<8x8xi32>) {
  // expected-error @+1 {{'kern.attention' op needs f32, f64, f16 or bf16 elements, not 'i32'}}
  kern.attention %q, %q, %q into %q {dims = array<i64: 8, 8, 8, 8>, q_layout = array<i64: 0, 8, 1>, k_layout = array<i64: 0, 8, 1>, v_layout = array<i64: 0, 8, 1>, y_layout = array<i64: 0, 8, 1>, scale = 1.0 : f32} : memref<8x8xi32>, memref<8x8xi32>, memref<8x8xi32> into memref<8x8xi32>
  return
}

// -----

func.func @attention_types(%q: memref<8x8xf32>, %y: memref<8x8xf16>) {
  // expected-error @+1 {{'kern.attention' op q, k, v, mask and y need one element type, not 'f32' and 'f16'}}
  kern.attention %q, %q, %q into %y {dims = array<i64: 8, 8, 8, 8>, q_layout = array<i64: 0, 8, 1>, k_layout = array<i64: 0, 8, 1>, v_layout = array<i64: 0, 8, 1>, y_layout = array<i64: 0, 8, 1>, scale = 1.0 : f32} : memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32> into memref<8x8xf16>
  return
}

// -----

func.func @attention_dims(%q: memref<8x8xf32>) {
  // expected-error @+1 {{'kern.attention' op dims must be 0 to 8 batch dims then S, T, D, E; got 3 entries}}
  kern.attention %q, %q, %q into %q {dims = array<i64: 8, 8, 8>, q_layout = array<i64: 0, 8, 1>, k_layout = array<i64: 0, 8, 1>, v_layout = array<i64: 0, 8, 1>, y_layout = array<i64: 0, 8, 1>, scale = 1.0 : f32} : memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32> into memref<8x8xf32>
  return
}

// -----

func.func @attention_negative_dims(%q: memref<8x8xf32>) {
  // expected-error @+1 {{'kern.attention' op dims must be >= 0}}
  kern.attention %q, %q, %q into %q {dims = array<i64: 8, -8, 8, 8>, q_layout = array<i64: 0, 8, 1>, k_layout = array<i64: 0, 8, 1>, v_layout = array<i64: 0, 8, 1>, y_layout = array<i64: 0, 8, 1>, scale = 1.0 : f32} : memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32> into memref<8x8xf32>
  return
}

// -----

func.func @attention_mask_layout(%q: memref<8x8xf32>) {
  // expected-error @+1 {{'kern.attention' op a mask comes with a mask_layout and only then}}
  kern.attention %q, %q, %q into %q {dims = array<i64: 8, 8, 8, 8>, q_layout = array<i64: 0, 8, 1>, k_layout = array<i64: 0, 8, 1>, v_layout = array<i64: 0, 8, 1>, mask_layout = array<i64: 0, 8, 1>, y_layout = array<i64: 0, 8, 1>, scale = 1.0 : f32} : memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32> into memref<8x8xf32>
  return
}

// -----

func.func @attention_layout_size(%q: memref<8x8xf32>) {
  // expected-error @+1 {{'kern.attention' op k_layout needs 3 entries, not 4}}
  kern.attention %q, %q, %q into %q {dims = array<i64: 8, 8, 8, 8>, q_layout = array<i64: 0, 8, 1>, k_layout = array<i64: 0, 0, 8, 1>, v_layout = array<i64: 0, 8, 1>, y_layout = array<i64: 0, 8, 1>, scale = 1.0 : f32} : memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32> into memref<8x8xf32>
  return
}

// -----

// v's columns start at 4: the last row reads elements 60 to 67 of 64.
func.func @attention_bounds(%q: memref<8x8xf32>, %y: memref<8x8xf32>) {
  // expected-error @+1 {{'kern.attention' op v is accessed at [4, 67], outside its 64 elements}}
  kern.attention %q, %q, %q into %y {dims = array<i64: 8, 8, 8, 8>, q_layout = array<i64: 0, 8, 1>, k_layout = array<i64: 0, 8, 1>, v_layout = array<i64: 4, 8, 1>, y_layout = array<i64: 0, 8, 1>, scale = 1.0 : f32} : memref<8x8xf32>, memref<8x8xf32>, memref<8x8xf32> into memref<8x8xf32>
  return
}

// -----

func.func @gather_elements_output(%d: memref<3x4xf32>, %i: memref<3x2xi64>, %y: memref<3x2xf16>) {
  // expected-error @+1 {{'kern.gather_elements' op y must be 'memref<3x2xf32>', not 'memref<3x2xf16>'}}
  kern.gather_elements %d, %i into %y {axis = 1 : i64} : memref<3x4xf32>, memref<3x2xi64> into memref<3x2xf16>
  return
}

// -----

func.func @gather_elements_dims(%d: memref<3x4xf32>, %i: memref<5x2xi64>, %y: memref<5x2xf32>) {
  // expected-error @+1 {{'kern.gather_elements' op indices 'memref<5x2xi64>' exceed 'memref<3x4xf32>' on dim 0}}
  kern.gather_elements %d, %i into %y {axis = 1 : i64} : memref<3x4xf32>, memref<5x2xi64> into memref<5x2xf32>
  return
}

// -----

func.func @scatter_elements_indices(%i: memref<3x2xui32>, %u: memref<3x2xf32>, %y: memref<3x4xf32>) {
  // expected-error @+1 {{'kern.scatter_elements' op indices must be i32 or i64, not 'ui32'}}
  kern.scatter_elements %i, %u into %y {axis = 1 : i64} : memref<3x2xui32>, memref<3x2xf32> into memref<3x4xf32>
  return
}

// -----

func.func @scatter_elements_reduction(%i: memref<3x2xi64>, %u: memref<3x2xi1>, %y: memref<3x4xi1>) {
  // expected-error @+1 {{'kern.scatter_elements' op reduction 'mul' needs numeric elements, not i1}}
  kern.scatter_elements %i, %u into %y {axis = 1 : i64, reduction = "mul"} : memref<3x2xi64>, memref<3x2xi1> into memref<3x4xi1>
  return
}

// -----

func.func @scatter_elements_updates(%i: memref<3x2xi64>, %u: memref<2x3xf32>, %y: memref<3x4xf32>) {
  // expected-error @+1 {{'kern.scatter_elements' op updates 'memref<2x3xf32>' must have the shape of indices 'memref<3x2xi64>'}}
  kern.scatter_elements %i, %u into %y {axis = 1 : i64} : memref<3x2xi64>, memref<2x3xf32> into memref<3x4xf32>
  return
}

// -----

func.func @scatter_nd_kind(%i: memref<2x1xi64>, %u: memref<2x4xf32>, %y: memref<3x4xf32>) {
  // expected-error @+1 {{'kern.scatter_nd' op reduction must be none, add, mul, max or min, not 'sum'}}
  kern.scatter_nd %i, %u into %y {reduction = "sum"} : memref<2x1xi64>, memref<2x4xf32> into memref<3x4xf32>
  return
}

// -----

func.func @scatter_nd_updates(%i: memref<2x2xi64>, %u: memref<2x4xf32>, %y: memref<3x4xf32>) {
  // expected-error @+1 {{'kern.scatter_nd' op updates must be 'memref<2xf32>', not 'memref<2x4xf32>'}}
  kern.scatter_nd %i, %u into %y : memref<2x2xi64>, memref<2x4xf32> into memref<3x4xf32>
  return
}

// -----

func.func @moe_route_ids(%ids: memref<16x2xf32>, %off: memref<5xi32>, %slots: memref<32xi32>) {
  // expected-error @+1 {{'kern.moe_route' op ids must be [tokens, k] of i32 or i64, not 'memref<16x2xf32>'}}
  kern.moe_route %ids into %off, %slots {num_experts = 4 : i64} : memref<16x2xf32> into memref<5xi32>, memref<32xi32>
  return
}

// -----

func.func @moe_route_offsets(%ids: memref<16x2xi64>, %off: memref<4xi32>, %slots: memref<32xi32>) {
  // expected-error @+1 {{'kern.moe_route' op offsets must be memref<5xi32>, not 'memref<4xi32>'}}
  kern.moe_route %ids into %off, %slots {num_experts = 4 : i64} : memref<16x2xi64> into memref<4xi32>, memref<32xi32>
  return
}

// -----

func.func @moe_permute_rows(%x: memref<16x32xf32>, %slots: memref<24xi32>, %rows: memref<24x32xf32>) {
  // expected-error @+1 {{'kern.moe_permute' op rows 'memref<24x32xf32>' must hold k rows per token of 'memref<16x32xf32>'}}
  kern.moe_permute %x, %slots into %rows : memref<16x32xf32>, memref<24xi32> into memref<24x32xf32>
  return
}

// -----

func.func @grouped_matmul_chain(%a: memref<32x32xf32>, %b: memref<4x16x96xf32>, %off: memref<5xi32>, %y: memref<32x96xf32>) {
  // expected-error @+1 {{'kern.grouped_matmul' op shapes do not chain: 'memref<32x32xf32>' x 'memref<4x16x96xf32>' into 'memref<32x96xf32>'}}
  kern.grouped_matmul %a, %b, %off into %y : memref<32x32xf32>, memref<4x16x96xf32>, memref<5xi32> into memref<32x96xf32>
  return
}

// -----

func.func @grouped_matmul_type(%a: memref<32x32xi8>, %b: memref<4x32x96xi8>, %off: memref<5xi32>, %y: memref<32x96xi8>) {
  // expected-error @+1 {{'kern.grouped_matmul' op a, b and y must be one of f32, f16, bf16}}
  kern.grouped_matmul %a, %b, %off into %y : memref<32x32xi8>, memref<4x32x96xi8>, memref<5xi32> into memref<32x96xi8>
  return
}

// -----

func.func @grouped_bias_width(%b: memref<4x32xf32>, %off: memref<5xi32>, %y: memref<32x96xf32>) {
  // expected-error @+1 {{'kern.grouped_bias' op needs bias [experts, n] and y [rows, n], got 'memref<4x32xf32>', 'memref<32x96xf32>'}}
  kern.grouped_bias %b, %off into %y : memref<4x32xf32>, memref<5xi32> into memref<32x96xf32>
  return
}

// -----

func.func @grouped_bias_offsets(%b: memref<4x96xf32>, %off: memref<4xi32>, %y: memref<32x96xf32>) {
  // expected-error @+1 {{'kern.grouped_bias' op offsets}}
  kern.grouped_bias %b, %off into %y : memref<4x96xf32>, memref<4xi32> into memref<32x96xf32>
  return
}

// -----

func.func @moe_combine_slots(%rows: memref<32x32xf32>, %w: memref<16x2xf32>, %slots: memref<16xi32>, %y: memref<16x32xf32>) {
  // expected-error @+1 {{'kern.moe_combine' op slots must be memref<32xi32>, not 'memref<16xi32>'}}
  kern.moe_combine %rows, %w, %slots into %y : memref<32x32xf32>, memref<16x2xf32>, memref<16xi32> into memref<16x32xf32>
  return
}

// -----

func.func @moe_place_table(%ids: memref<16x2xi64>, %slots: memref<16x2xi32>) {
  // expected-error @+1 {{'kern.moe_place' op table must hold max_copies (2) entries for each of the 3 experts, not 5}}
  kern.moe_place %ids into %slots {copies = array<i64: 2, 1, 1>, max_copies = 2 : i64, table = array<i64: 0, 3, 1, -1, 2>} : memref<16x2xi64> into memref<16x2xi32>
  return
}

// -----

func.func @moe_place_missing(%ids: memref<16x2xi64>, %slots: memref<16x2xi32>) {
  // expected-error @+1 {{'kern.moe_place' op copy 1 of expert 0 has no slot}}
  kern.moe_place %ids into %slots {copies = array<i64: 2, 1, 1>, max_copies = 2 : i64, table = array<i64: 0, -1, 1, -1, 2, -1>} : memref<16x2xi64> into memref<16x2xi32>
  return
}

// -----

func.func @moe_place_slots(%ids: memref<16x2xi64>, %slots: memref<16x2xi64>) {
  // expected-error @+1 {{'kern.moe_place' op slots must be i32 of the ids' shape, not 'memref<16x2xi64>'}}
  kern.moe_place %ids into %slots {copies = array<i64: 1, 1>, max_copies = 1 : i64, table = array<i64: 0, 1>} : memref<16x2xi64> into memref<16x2xi64>
  return
}

// -----

// kern.per_rank (kern-merge-ranks): one value per rank of the program.
func.func @per_rank_one_rank(%y: memref<2xf32>) attributes {kern.ranks = array<i64: 0>} {
  // expected-error @+1 {{'kern.weight' op has 'kern.per_rank' outside a program of several ranks}}
  %w = kern.weight {kern.per_rank = {value = [dense<1.0> : tensor<2xf32>]}, value = dense<1.0> : tensor<2xf32>} : memref<2xf32>
  return
}

// -----

func.func @per_rank_count(%y: memref<2xf32>) attributes {kern.ranks = array<i64: 0, 1, 2>} {
  // expected-error @+1 {{'kern.weight' op 'kern.per_rank' entry 'value' must list one value per rank (3)}}
  %w = kern.weight {kern.per_rank = {value = [dense<1.0> : tensor<2xf32>, dense<2.0> : tensor<2xf32>]}, value = dense<1.0> : tensor<2xf32>} : memref<2xf32>
  return
}

// -----

func.func @per_rank_first(%y: memref<2xf32>) attributes {kern.ranks = array<i64: 0, 1>} {
  // expected-error @+1 {{'kern.weight' op 'kern.per_rank' entry 'value' must start with the op's own value}}
  %w = kern.weight {kern.per_rank = {value = [dense<3.0> : tensor<2xf32>, dense<2.0> : tensor<2xf32>]}, value = dense<1.0> : tensor<2xf32>} : memref<2xf32>
  return
}

// -----

func.func @per_rank_type(%y: memref<2xf32>) attributes {kern.ranks = array<i64: 0, 1>} {
  // expected-error @+1 {{'kern.weight' op 'kern.per_rank' entry 'value' has a value of another type than the op's}}
  %w = kern.weight {kern.per_rank = {value = [dense<1.0> : tensor<2xf32>, dense<2.0> : tensor<3xf32>]}, value = dense<1.0> : tensor<2xf32>} : memref<2xf32>
  return
}

// -----

func.func @per_rank_dict(%y: memref<2xf32>) attributes {kern.ranks = array<i64: 0, 1>} {
  // expected-error @+1 {{'kern.weight' op 'kern.per_rank' must be a dictionary}}
  %w = kern.weight {kern.per_rank = [1, 2], value = dense<1.0> : tensor<2xf32>} : memref<2xf32>
  return
}

// -----

// An int8 product (int8 x int8 into int32) is scaled back by its caller.
func.func @matmul_int8_bias(%a: memref<1x4x8xi8>, %b: memref<1x8x2xi8>, %bias: memref<1x1x2xi32>, %y: memref<1x4x2xi32>) {
  // expected-error @+1 {{'kern.matmul' op an int8 product takes no bias, residual, epilogue or scaling}}
  kern.matmul %a, %b bias %bias into %y : memref<1x4x8xi8>, memref<1x8x2xi8>, memref<1x1x2xi32> into memref<1x4x2xi32>
  return
}

// -----

func.func @matmul_int8_into_f32(%a: memref<1x4x8xi8>, %b: memref<1x8x2xi8>, %y: memref<1x4x2xf32>) {
  // expected-error @+1 {{'kern.matmul' op a, b and y need one element type}}
  kern.matmul %a, %b into %y : memref<1x4x8xi8>, memref<1x8x2xi8> into memref<1x4x2xf32>
  return
}

// -----

func.func @matmul_int8_row_scales(%a: memref<1x4x8xi8>, %b: memref<1x8x2xi8>, %s: memref<1x4x2xf32>, %ws: memref<2xf32>, %y: memref<1x4x2xf32>) {
  // expected-error @+1 {{'kern.matmul_int8' op a_scale needs one value per row}}
  kern.matmul_int8 %a, %b scales %ws rows %s into %y : memref<1x4x8xi8>, memref<1x8x2xi8>, memref<2xf32> rows memref<1x4x2xf32> into memref<1x4x2xf32>
  return
}

// -----

func.func @conv_int8_types(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xi8>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{'kern.conv' op with scales takes ui8 or i8 x, i8 w, f32 bias and y, and is not transposed}}
  kern.conv %x, %w into %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, scales = array<f32: 1.0>} : memref<1x3x8x8xf32>, memref<4x3x3x3xi8> into memref<1x4x6x6xf32>
  return
}

// -----

func.func @conv_int8_scales(%x: memref<1x3x8x8xi8>, %w: memref<4x3x3x3xi8>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{'kern.conv' op needs 1 or 4 scales, not 2}}
  kern.conv %x, %w into %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, scales = array<f32: 1.0, 2.0>} : memref<1x3x8x8xi8>, memref<4x3x3x3xi8> into memref<1x4x6x6xf32>
  return
}

// -----

func.func @conv_zero_point_float(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>) {
  // expected-error @+1 {{'kern.conv' op x_zero_point needs scales (an int8 convolution)}}
  kern.conv %x, %w into %y {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, x_zero_point = 3 : i64} : memref<1x3x8x8xf32>, memref<4x3x3x3xf32> into memref<1x4x6x6xf32>
  return
}

// -----

func.func @conv_dynamic_float(%x: memref<1x3x8x8xf32>, %w: memref<4x3x3x3xf32>, %y: memref<1x4x6x6xf32>, %s: memref<f32>, %z: memref<ui8>) {
  // expected-error @+1 {{'kern.conv' op a run-time scale needs scales (an int8 convolution)}}
  kern.conv %x, %w into %y dynamic %s, %z {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64} : memref<1x3x8x8xf32>, memref<4x3x3x3xf32> into memref<1x4x6x6xf32> dynamic memref<f32>, memref<ui8>
  return
}

// -----

func.func @conv_dynamic_zero_type(%x: memref<1x3x8x8xui8>, %w: memref<4x3x3x3xi8>, %y: memref<1x4x6x6xf32>, %s: memref<f32>, %z: memref<i8>) {
  // expected-error @+1 {{'kern.conv' op run-time scale and zero point must be one f32 and one of x's type}}
  kern.conv %x, %w into %y dynamic %s, %z {strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, group = 1 : i64, scales = array<f32: 1.0>} : memref<1x3x8x8xui8>, memref<4x3x3x3xi8> into memref<1x4x6x6xf32> dynamic memref<f32>, memref<i8>
  return
}
