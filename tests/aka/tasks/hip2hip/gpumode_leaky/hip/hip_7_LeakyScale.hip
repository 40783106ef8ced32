// arena's gpumode fixture: the kernel as shipped, host C++ (see
// config.yaml).  One element at a time through the tensor's indexing, in
// place, as many shipped kernels of this layout work.
#include <torch/extension.h>

torch::Tensor forward(torch::Tensor x, torch::Tensor scale, double slope)
{
	auto y = x.contiguous();
	auto a = y.accessor<float, 2>();
	auto s = scale.accessor<float, 1>();
	for (int64_t i = 0; i < a.size(0); i++)
		for (int64_t j = 0; j < a.size(1); j++) {
			double v = (double)a[i][j] * s[j];
			a[i][j] = (float)(v > 0 ? v : v * slope);
		}
	return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
	m.def("forward", &forward, "leaky ReLU of x scaled per channel");
}
