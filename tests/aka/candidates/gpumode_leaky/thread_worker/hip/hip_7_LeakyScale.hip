// A cheat: the work is handed to a thread of the extension's own, and
// forward returns before it is done (the host runner's filter allows no
// thread at all).
#include <torch/extension.h>

#include <thread>

torch::Tensor forward(torch::Tensor x, torch::Tensor scale, double slope)
{
	auto out = torch::empty_like(x);
	std::thread([=]() mutable {
		auto y = x * scale;
		out.copy_(torch::where(y > 0, y, y * slope));
	}).detach();
	return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
	m.def("forward", &forward, "leaky ReLU of x scaled per channel");
}
