"""A mixture-of-experts export with experts its router never picks.

  dead_expert.py IN.onnx OUT.onnx EXPERT [EXPERT ...]

Finds the routers of IN.onnx (each MatMul by an initializer [H, E] whose
logits a Softmax reads), and
adds a bias to the first router's logits: -1e4 for the experts named, 0
for the others, so that the softmax gives them nothing and the top-k never
picks them (a router with a bias, as nn.Linear(bias=True) exports). The
other layers are unchanged.
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

src, dst, dead = sys.argv[1], sys.argv[2], [int(e) for e in sys.argv[3:]]
m = onnx.load(src)
inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
softmaxed = {n.input[0] for n in m.graph.node if n.op_type == "Softmax"}
routers = [n for n in m.graph.node if n.op_type == "MatMul" and n.input[1] in inits
           and inits[n.input[1]].ndim == 2 and n.output[0] in softmaxed]
if not routers:
    sys.exit("dead_expert.py: no router MatMul in " + src)
router = routers[0]
experts = inits[router.input[1]].shape[1]
bias = np.zeros(experts, np.float32)
bias[dead] = -1e4
m.graph.initializer.append(numpy_helper.from_array(bias, "dead_expert_bias"))
logits = router.output[0]
router.output[0] = logits + "_unbiased"
at = list(m.graph.node).index(router)
m.graph.node.insert(at + 1, helper.make_node(
    "Add", [logits + "_unbiased", "dead_expert_bias"], [logits], name="dead_expert_add"))
onnx.save(m, dst)
print("%d routers of %d experts; experts %s of the first never routed" %
      (len(routers), experts, dead))
