/* Which serving frameworks run on which accelerators (docs/model.md
 * "Frameworks and accelerators"). A model compiled for one runtime does not
 * run on another: an ONNX Runtime model has no Neuron or TPU backend, and
 * Inferentia1 only runs what the first-generation Neuron compiler produced.
 * The table is applied when the profile's families are used; --allow names
 * the families outright and overrides it. Frameworks the table does not
 * know are not restricted. */
#include <string.h>
#include <strings.h>

#include "fit_internal.h"

/* Runtime classes: an accelerator generation with one software stack. */
enum {
  RT_NVIDIA = 1u << 0, /* CUDA */
  RT_CPU = 1u << 1,
  RT_INF1 = 1u << 2,    /* Inferentia1: neuron-cc (torch-neuron, tensorflow-neuron, mxnet-neuron) */
  RT_NEURONX = 1u << 3, /* Inferentia2, Trainium: neuronx-cc (torch-neuronx, jax, vLLM via NxD) */
  RT_TPU = 1u << 4      /* XLA on TPU */
};

static const struct {
  const char *framework;
  unsigned runs_on;
  const char *source;
} table[] = {
    {"pytorch", RT_NVIDIA | RT_CPU | RT_INF1 | RT_NEURONX | RT_TPU,
     "Neuron docs: torch-neuron (Inf1), torch-neuronx (Inf2, Trn1); Cloud TPU docs: PyTorch/XLA"},
    {"tensorflow", RT_NVIDIA | RT_CPU | RT_INF1 | RT_NEURONX | RT_TPU,
     "Neuron docs: tensorflow-neuron (Inf1), tensorflow-neuronx (Inf2, Trn1); Cloud TPU docs"},
    {"mxnet", RT_NVIDIA | RT_CPU | RT_INF1, "Neuron docs: mxnet-neuron is for Inf1 only"},
    {"jax", RT_NVIDIA | RT_CPU | RT_NEURONX | RT_TPU,
     "Neuron docs: JAX Neuron for Inf2, Trn1, Trn2; Cloud TPU docs: JAX"},
    {"onnxruntime", RT_NVIDIA | RT_CPU,
     "ONNX Runtime execution providers: CPU, CUDA, TensorRT; none for Neuron or TPU"},
    {"tensorrt", RT_NVIDIA, "TensorRT engines run on NVIDIA GPUs only"},
    {"vllm", RT_NVIDIA | RT_NEURONX | RT_TPU,
     "vLLM: CUDA; Neuron docs: vLLM with NxD Inference on Inf2, Trn1; TPU backend"},
};

static unsigned runtime_of(const rs_instance *in, const char **name) {
  if (in->category == RS_CATEGORY_CPU || in->accelerator == NULL) {
    *name = "CPU";
    return RT_CPU;
  }
  *name = in->accelerator->name;
  switch (in->accelerator->family) {
  case RS_ACCEL_NVIDIA_GPU: return RT_NVIDIA;
  case RS_ACCEL_INFERENTIA:
    return strcasecmp(in->accelerator->key, "Inferentia1") == 0 ? RT_INF1 : RT_NEURONX;
  case RS_ACCEL_TRAINIUM: return RT_NEURONX;
  case RS_ACCEL_TPU: return RT_TPU;
  }
  return RT_CPU;
}

const char *rs_fit_compat(rs_fit_ctx *ctx, const char *framework, const rs_instance *in) {
  if (framework == NULL)
    return NULL;
  for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
    if (strcasecmp(framework, table[i].framework) != 0)
      continue;
    const char *dev;
    if (runtime_of(in, &dev) & table[i].runs_on)
      return NULL;
    return rs_fit_printf(ctx, "%s models do not run on %s (%s); --allow overrides", framework, dev,
                         table[i].source);
  }
  return NULL;
}
