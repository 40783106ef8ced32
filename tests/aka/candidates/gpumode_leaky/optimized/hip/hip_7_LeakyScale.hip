// A faster kernel: one pass over contiguous rows in float, into a new
// tensor (a gpumode kernel need not work in place).
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x, torch::Tensor scale, double slope)
{
	auto xc = x.contiguous();
	auto out = torch::empty_like(xc);
	const float *p = xc.data_ptr<float>();
	const float *s = scale.data_ptr<float>();
	float *o = out.data_ptr<float>();
	const int64_t rows = xc.size(0), cols = xc.size(1);
	const float k = (float)slope;

	for (int64_t i = 0; i < rows; i++, p += cols, o += cols)
		for (int64_t j = 0; j < cols; j++) {
			float v = p[j] * s[j];
			o[j] = v > 0.f ? v : v * k;
		}
	return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
	m.def("forward", &forward, "leaky ReLU of x scaled per channel");
}
