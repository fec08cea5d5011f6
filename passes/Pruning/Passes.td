//===- Passes.td - Pruning: structure a model does not need -*- tablegen -*-===//

#ifndef SHARDC_PASSES_PRUNING
#define SHARDC_PASSES_PRUNING

include "mlir/Pass/PassBase.td"

def GraphPruneLossless : Pass<"graph-prune-lossless", "mlir::func::FuncOp"> {
  let summary = "Remove MLP and convolution channels and attention heads "
                "that contribute nothing or a constant";
  let description = [{
    Runs in every compile (after fusion). On the structures of Prune.h,
    exactly:

    - an MLP channel whose row of the second projection's weight is zero
      contributes nothing: its column of the first projection, its bias
      element and that row go;
    - an MLP channel whose column of the first projection's weight is zero
      is the constant act(b1[j]): it goes, and act(b1[j]) times its row of
      the second weight is added to the second projection's bias (created
      when there is none);
    - in a gated MLP (down(swiglu(gate(x), up(x)))), a channel whose down
      row is zero, or whose gate or up column and bias are zero, goes
      (silu(0) = 0);
    - a channel between two convolutions (group 1) that the second reads
      through zero filters goes; one whose own filters are zero is
      act(b[c]) everywhere, which an unpadded second convolution adds to
      its bias (with padding the borders would differ: kept);
    - an attention head whose rows of the output projection are zero, or
      whose columns of the value projection and value bias are zero (its
      output is a weighted mean of zeros), contributes nothing: its columns
      of the q, k and v projections and biases, its rows of the output
      projection go, and the reshapes, transposes and attention shrink.

    Nothing that is merely small goes; zero query or key columns are kept
    (they make attention uniform, not zero). At least one channel and one
    head stay. Weights that cannot be read (shape-only planning, fp16 or
    bf16 storage, windows) leave their structure as it is.
  }];
  let statistics = [
    Statistic<"numChannels", "mlp-channels", "MLP channels removed">,
    Statistic<"numHeads", "heads", "Attention heads removed">
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphPrune : Pass<"graph-prune", "mlir::func::FuncOp"> {
  let summary = "Structured pruning of MLP channels and attention heads "
                "from calibration statistics (structured OBS)";
  let description = [{
    `--prune=ffn:R,heads:R --calibration=DIR`: removes the fraction R of
    the MLP channels and of the attention heads of the structures of
    Prune.h that matter least on the calibration samples, without
    retraining:

    - per layer, H = (X~^T X~) o (W W^T) is the Gram matrix of each input
      channel's contribution x~_j W[j, :] to the second projection's output
      (an MLP's down projection, a head's output projection) over the
      centered sample rows, damped by 1% of its mean diagonal;
    - the Optimal Brain Surgeon on the channels' mask values (ZipLM's
      structured OBS) removes, step by step, the `channel-multiple` (32)
      channels or the `head-multiple` (1) heads whose removal with the best
      update of the others costs least, and rescales the others by that
      update (the least-squares reconstruction of the output);
    - each step goes to the layer whose output error, relative to its
      output's energy, grows least, so layers lose different fractions;
      what a layer keeps is a multiple of the step (32 channels: a pruned
      model still splits evenly over tp), at least one;
    - the removed rows' mean contribution and what the rescaling takes
      from the kept ones' moves into the bias (FLAP's compensation).

    `conv=R` does the same for the channels of Prune.h's convolution
    chains whose second convolution is 1x1 and unpadded (a per-pixel
    projection: PP-LCNet's pointwise convolutions, with a depthwise one and
    scalar affines between): the rows are the calibration's pixels, a
    channel's removal takes its filters from the first and every depthwise
    convolution, and the step is `conv-multiple` channels (16: oneDNN's
    channel blocks). The compensation adds each removed channel's mean
    over the calibration pixels times its filters: right on average, not
    at every pixel (a padded depthwise convolution's borders differ from
    its interior).

    `stats` is the statistics file of the calibration run (the driver's:
    per activation of the int8 passes' order, quant::quantizableGroups
    then quant::quantizableConvs, channel means and mean squares),
    measured on the unpruned graph.
  }];
  let options = [
    Option<"stats", "stats", "std::string", /*default=*/"",
           "The calibration statistics (stats.json)">,
    Option<"ffn", "ffn", "double", /*default=*/"0.0",
           "Fraction of MLP channels to remove">,
    Option<"heads", "heads", "double", /*default=*/"0.0",
           "Fraction of attention heads to remove">,
    Option<"channelMultiple", "channel-multiple", "int64_t",
           /*default=*/"32", "MLP channels kept per layer: a multiple of">,
    Option<"headMultiple", "head-multiple", "int64_t", /*default=*/"1",
           "Heads kept per layer: a multiple of">,
    Option<"conv", "conv", "double", /*default=*/"0.0",
           "Fraction of the channels between convolutions to remove">,
    Option<"convMultiple", "conv-multiple", "int64_t", /*default=*/"16",
           "Convolution channels removed per step (oneDNN's 16-channel "
           "blocks)">
  ];
  let statistics = [
    Statistic<"numChannels", "mlp-channels", "MLP channels removed">,
    Statistic<"numHeads", "heads", "Attention heads removed">,
    Statistic<"numConvChannels", "conv-channels",
              "Convolution channels removed">
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

def GraphPruneExperts : Pass<"graph-prune-experts", "mlir::func::FuncOp"> {
  let summary = "Remove the experts calibration routes (almost) no tokens "
                "to";
  let description = [{
    `--prune=experts[:SHARE] --calibration=DIR`: per graph.moe layer of
    Prune.h's form, in program order, `expert-loads` holds the tokens the
    calibration samples routed to each of its experts (the same counts as
    expert placement's, layer after layer). The experts whose share of the
    layer's routed choices is at most `share` (0: never routed) go: their
    slices of the expert weights and biases, and their columns of the
    router's projection, so that the top-k picks among the kept experts,
    renumbered in their order. At least top-k experts stay (the most
    loaded). Not lossless: an input that would have routed to a removed
    expert routes elsewhere; and where the router normalizes over every
    expert (softmax before the top-k, without renormalizing the k
    weights), the kept experts' weights grow by the removed ones' share of
    the softmax. A layer whose router has another form is left whole, with
    a remark.
  }];
  let options = [
    ListOption<"expertLoads", "expert-loads", "int64_t",
               "Tokens routed to each expert of each layer, in order">,
    Option<"share", "share", "double", /*default=*/"0.0",
           "Experts with at most this share of a layer's choices go">
  ];
  let statistics = [
    Statistic<"numExperts", "experts", "Experts removed">
  ];
  let dependentDialects = ["shardc::graph::GraphDialect"];
}

#endif // SHARDC_PASSES_PRUNING
