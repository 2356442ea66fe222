#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocm-resolve/policy.h"
#include "rocm-resolve/strbuf.h"
#include "rocm-resolve/strv.h"

static struct rr_policy *pol_;

static int setup(void **state)
{
	rr_error e = RR_ERROR_INIT;
	(void)state;
	if (rr_policy_load_default(&pol_, &e)) {
		fprintf(stderr, "default policy: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pol_ = rr_policy_free(pol_);
	return 0;
}

static void test_default_loads(void **state)
{
	struct rr_policy *p = rr_policy_new();
	rr_error e = RR_ERROR_INIT;
	const char *src = getenv("RR_SRCDIR");
	RR_AUTOFREE char *path = rr_xasprintf("%s/data/policy.json", src ? src : ".");
	(void)state;

	/* every section of the shipped file has rules, and the file on disk loads too */
	for (int s = 0; s < RR_POL__MAX; s++)
		assert_true(rr_policy_count(pol_, (enum rr_policy_section)s) > 0);
	if (rr_policy_load_file(p, path, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(rr_policy_count(p, RR_POL_CUDA_ONLY),
			 rr_policy_count(pol_, RR_POL_CUDA_ONLY));
	rr_policy_free(p);
}

static void test_gpu_family(void **state)
{
	static const char *const yes[] = {"torch", "torchvision", "torchaudio", "triton",
					  "pytorch-triton-rocm", "triton-rocm", "pytorch-triton",
					  "apex", "flash-attn", "xformers", "bitsandbytes", "amdsmi",
					  "rocm", "rocm-sdk-core", "rocm-sdk-libraries-gfx94x-dcgpu",
					  "amd-aiter", "torch-migraphx", "amd-torch-device-gfx942"};
	static const char *const no[] = {"torchmetrics", "torch-npu", "triton-ascend", "torchx",
					 "rocm-smi-lib-foo", "pytorch-lightning", "numpy",
					 "apex-tools", "xtorch"};
	(void)state;

	for (size_t i = 0; i < RR_ARRAY_LEN(yes); i++)
		if (!rr_policy_match_gpu_family(pol_, yes[i]))
			fail_msg("%s should be GPU family", yes[i]);
	for (size_t i = 0; i < RR_ARRAY_LEN(no); i++)
		if (rr_policy_match_gpu_family(pol_, no[i]))
			fail_msg("%s should not be GPU family", no[i]);
}

static void test_cuda_only(void **state)
{
	static const char *const yes[] = {
		"nvidia-cublas-cu12", "nvidia-cuda-runtime-cu11", "nvidia-cudnn-cu13",
		"nvidia-nccl-cu12", "nvidia-cublas", "nvidia-cuda-nvrtc", "nvidia-nvjitlink",
		"cuda-toolkit", "cuda-bindings", "cuda-python", "cupy-cuda12x", "cupy-cuda11x",
		"jax-cuda12-plugin", "jax-cuda12-pjrt", "onnxruntime-gpu", "tensorrt",
		"tensorrt-cu12", "tensorrt-llm", "torch-tensorrt", "nvidia-dali-cuda120",
		"nvidia-pyindex", "cudf-cu12"};
	static const char *const no[] = {"nvidia-ml-py", "pynvml", "nvidia-ml-py3", "cupy",
					 "cupy-rocm-5-0", "onnxruntime", "onnxruntime-rocm", "torch",
					 "triton", "jax", "jax-rocm60-plugin", "accuracy",
					 "triton-ascend", "torch-npu", "torchmetrics", "nvidia"};
	(void)state;

	for (size_t i = 0; i < RR_ARRAY_LEN(yes); i++)
		if (!rr_policy_match_cuda_only(pol_, yes[i]))
			fail_msg("%s should be CUDA-only", yes[i]);
	for (size_t i = 0; i < RR_ARRAY_LEN(no); i++)
		if (rr_policy_match_cuda_only(pol_, no[i]))
			fail_msg("%s should not be CUDA-only", no[i]);
	assert_non_null(rr_policy_match(pol_, RR_POL_NOT_CUDA_ONLY, "nvidia-ml-py"));
}

/* the load check's library names: what DT_NEEDED says, not distribution names */
static void test_libraries(void **state)
{
	static const char *const cuda[] = {"libcudart.so.12",
					   "libcudart.so",
					   "libcuda.so.1",
					   "libnvrtc.so.12",
					   "libnvrtc-builtins.so.12.8",
					   "libcublas.so.12",
					   "libcublasLt.so.12",
					   "libcufft.so.11",
					   "libcurand.so.10",
					   "libcusolver.so.11",
					   "libcusparse.so.12",
					   "libcutensor.so.2",
					   "libcudnn.so.9",
					   "libcudnn_graph.so.9",
					   "libnccl.so.2",
					   "libc10_cuda.so",
					   "libtorch_cuda.so",
					   "libnvJitLink.so.12"};
	static const char *const not_cuda[] = {
	    "libamdhip64.so.7",   "libc10.so",   "libc10_hip.so",   "libtorch_hip.so",
	    "libcudart_static.a", "libcudaq.so", "libhipblas.so.3", "libcublas_ok"};
	static const char *const hip[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libhiprtc.so.7"};
	static const char *const not_hip[] = {"libamdhip64.so", "libhipblas.so.3", "libc10_hip.so",
					      "libamdhip64.so.7.2"};
	const struct rr_policy_rule *r;
	(void)state;

	for (size_t i = 0; i < RR_ARRAY_LEN(cuda); i++)
		if (!rr_policy_match_cuda_library(pol_, cuda[i]))
			fail_msg("%s should be a CUDA library", cuda[i]);
	for (size_t i = 0; i < RR_ARRAY_LEN(not_cuda); i++)
		if (rr_policy_match_cuda_library(pol_, not_cuda[i]))
			fail_msg("%s should not be a CUDA library", not_cuda[i]);
	for (size_t i = 0; i < RR_ARRAY_LEN(hip); i++)
		if (!rr_policy_match_hip_runtime(pol_, hip[i]))
			fail_msg("%s should be the HIP runtime", hip[i]);
	for (size_t i = 0; i < RR_ARRAY_LEN(not_hip); i++)
		if (rr_policy_match_hip_runtime(pol_, not_hip[i]))
			fail_msg("%s should not be the HIP runtime", not_hip[i]);
	/* the counterpart table: its keys load and reach the rule */
	r = rr_policy_match(pol_, RR_POL_ROCM_COUNTERPART, "cupy-cuda12x");
	assert_non_null(r);
	assert_string_equal(r->rocm, "cupy-rocm-{major}-{minor}");
	assert_null(r->extra);
	r = rr_policy_match(pol_, RR_POL_ROCM_COUNTERPART, "onnxruntime-gpu");
	assert_string_equal(r->rocm, "onnxruntime-rocm | onnxruntime-migraphx");
	r = rr_policy_match(pol_, RR_POL_ROCM_COUNTERPART, "tensorflow");
	assert_string_equal(r->extra, "and-cuda");
	assert_non_null(rr_policy_match(pol_, RR_POL_ROCM_COUNTERPART, "torch-scatter"));
	assert_null(rr_policy_match(pol_, RR_POL_ROCM_COUNTERPART, "cupy-rocm-7-0"));
}

static void test_versions_labels_urls(void **state)
{
	(void)state;
	assert_non_null(rr_policy_match_rocm_version(pol_, "2.9.1+rocm7.2.0.lw.git7e1940d4"));
	assert_non_null(rr_policy_match_rocm_version(pol_, "2.8.0+rocm6.4"));
	assert_non_null(rr_policy_match_rocm_version(pol_, "2.8.0a0+rocmsdk20250901"));
	assert_non_null(rr_policy_match_rocm_version(pol_, "2.10.0a0+rocm7.11.0a20251209"));
	assert_non_null(rr_policy_match_rocm_version(pol_, "1.0+git12.rocm6.2"));
	assert_null(rr_policy_match_rocm_version(pol_, "2.9.1+cpu"));
	assert_null(rr_policy_match_rocm_version(pol_, "2.10.0+git8514f05"));
	assert_null(rr_policy_match_rocm_version(pol_, "3.4.0"));
	assert_null(rr_policy_match_rocm_version(pol_, "1.0rocm6"));

	assert_non_null(rr_policy_match_stock_label(pol_, "cpu"));
	assert_non_null(rr_policy_match_stock_label(pol_, "cu128"));
	assert_non_null(rr_policy_match_stock_label(pol_, "cpu.cxx11.abi"));
	assert_null(rr_policy_match_stock_label(pol_, "git8514f05"));
	assert_null(rr_policy_match_stock_label(pol_, "rocm6.4"));
	assert_null(rr_policy_match_stock_label(pol_, "cpux"));

	assert_non_null(rr_policy_match_rocm_url(
		pol_, "http://compute-artifactory.amd.com/artifactory/compute-pytorch-rocm/x.whl"));
	assert_non_null(rr_policy_match_rocm_url(
		pol_, "https://repo.radeon.com/rocm/manylinux/rocm-rel-7.2/torch-2.9.1.whl"));
	assert_non_null(rr_policy_match_rocm_url(pol_, "https://download.pytorch.org/whl/rocm6.4"));
	assert_non_null(rr_policy_match_rocm_url(pol_,
						 "https://download.pytorch.org/whl/nightly/rocm7.2/"));
	assert_non_null(rr_policy_match_rocm_url(pol_,
						 "https://rocm.nightlies.amd.com/v2/gfx94X-dcgpu/"));
	assert_non_null(rr_policy_match_rocm_url(
		pol_, "https://example.org/w/torch-2.8.0%2Brocm6.4-cp311-cp311-linux_x86_64.whl"));
	assert_non_null(rr_policy_match_rocm_url(
		pol_, "git+https://github.com/ROCm/flash-attention.git@main_perf"));
	assert_null(rr_policy_match_rocm_url(pol_, "https://download.pytorch.org/whl/cu128"));
	assert_null(rr_policy_match_rocm_url(pol_, "https://pypi.org/simple"));
	assert_null(rr_policy_match_rocm_url(pol_, "https://evil.example/repo.radeon.com/x"));

	assert_non_null(rr_policy_match_cuda_index(pol_, "https://download.pytorch.org/whl/cu128"));
	assert_non_null(rr_policy_match_cuda_index(pol_,
						   "https://download.pytorch.org/whl/nightly/cu130"));
	assert_non_null(rr_policy_match_cuda_index(pol_, "https://pypi.nvidia.com"));
	assert_non_null(rr_policy_match_cuda_index(pol_, "https://pypi.ngc.nvidia.com/simple"));
	assert_null(rr_policy_match_cuda_index(pol_, "https://download.pytorch.org/whl/cpu"));
	assert_null(rr_policy_match_cuda_index(pol_, "https://download.pytorch.org/whl/rocm6.4"));
	assert_null(rr_policy_match_cuda_index(pol_, "https://pypi.org/simple/cupy/"));
}

static void test_clash_groups(void **state)
{
	static const char *const tri[] = {"triton", "pytorch-triton-rocm", "triton-rocm",
					  "pytorch-triton", "triton-ascend", "triton-windows"};
	(void)state;
	for (size_t i = 0; i < RR_ARRAY_LEN(tri); i++)
		assert_string_equal(rr_policy_clash_group(pol_, tri[i]), "triton");
	assert_null(rr_policy_clash_group(pol_, "tritonclient"));
	assert_null(rr_policy_clash_group(pol_, "torch"));
	assert_string_equal(rr_policy_clash_group(pol_, "onnxruntime-rocm"), "onnxruntime");
	assert_string_equal(rr_policy_clash_group(pol_, "opencv-python-headless"), "cv2");
	assert_string_equal(rr_policy_rule_at(pol_, RR_POL_CLASH_GROUP, 0)->module, "triton");
}

static void expect_load_error(const char *json, rr_err code, unsigned line, unsigned col,
			      const char *part)
{
	struct rr_policy *p = rr_policy_new();
	rr_error e = RR_ERROR_INIT;
	RR_AUTO_STRBUF struct rr_strbuf sb = RR_STRBUF_INIT;

	assert_int_equal(rr_policy_load_buffer(p, json, strlen(json), "user.json", &e), code);
	rr_error_format(&e, &sb);
	if (!strstr(sb.buf, part))
		fail_msg("'%s' lacks '%s'", sb.buf, part);
	assert_int_equal(e.line, line);
	assert_int_equal(e.col, col);
	/* a failed load adds nothing */
	for (int s = 0; s < RR_POL__MAX; s++)
		assert_int_equal(rr_policy_count(p, (enum rr_policy_section)s), 0);
	rr_error_release(&e);
	rr_policy_free(p);
}

static void test_load_errors(void **state)
{
	(void)state;
	expect_load_error("{\"schema\": 1,\n \"gpu_family\": [}\n", RR_E_PARSE, 2, 17,
			  "user.json:2:17:");
	expect_load_error("{\"gpu_family\": []}", RR_E_DATA, 0, 0, "missing integer \"schema\"");
	expect_load_error("{\"schema\": 2}", RR_E_DATA, 1, 2, "unsupported policy schema 2");
	expect_load_error("{\"schema\": 1,\n  \"gpu_famly\": []}", RR_E_DATA, 2, 3,
			  "unknown policy key \"gpu_famly\"");
	expect_load_error("{\"schema\": 1,\n\"cuda_only\": [\n  {\"id\": \"x\", \"pattern\": \"^a\"}]}",
			  RR_E_DATA, 3, 10, "cuda_only rule 'x': missing \"reason\"");
	/* the PCRE2 error column points into the JSON string literal */
	expect_load_error("{\"schema\": 1, \"cuda_only\": [\n"
			  "  {\"id\": \"bad\", \"reason\": \"r\", \"pattern\": \"^a\\\\d(b\"}]}",
			  RR_E_DATA, 2, 51, "cuda_only rule 'bad': bad pattern at offset 6");
	expect_load_error("{\"schema\": 1, \"cuda_only\": [\n"
			  "  {\"id\": \"x\", \"reason\": \"r\", \"pattern\": \"a\", \"patern\": \"b\"}]}",
			  RR_E_DATA, 2, 46, "unknown key \"patern\"");
	expect_load_error("{\"schema\": 1, \"cuda_only\": [{\"id\": \"x\", \"reason\": \"r\", "
			  "\"pattern\": \"a\"}, {\"id\": \"x\", \"reason\": \"r\", \"pattern\": \"b\"}]}",
			  RR_E_DATA, 1, 80, "duplicate rule id 'x'");
	expect_load_error("{\"schema\": 1, \"gpu_family\": {}}", RR_E_DATA, 1, 15,
			  "must be an array");
	expect_load_error("{\"schema\": 1, \"schema\": 1}", RR_E_PARSE, 1, 22, "duplicate");
}

static void test_user_overrides(void **state)
{
	struct rr_policy *p;
	rr_error e = RR_ERROR_INIT;
	const char *user =
		"{\"schema\": 1, \"$comment\": \"site policy\",\n"
		" \"not_cuda_only\": [{\"id\": \"nvml-bindings\", \"enabled\": false}],\n"
		" \"gpu_family\": [{\"id\": \"vllm\", \"pattern\": \"^vllm$\", \"reason\": \"ours\"},\n"
		"                {\"id\": \"apex\", \"pattern\": \"^apex2$\", \"reason\": \"renamed\"}]}";
	(void)state;

	assert_int_equal(rr_policy_load_default(&p, &e), RR_OK);
	size_t n = rr_policy_count(p, RR_POL_GPU_FAMILY);
	assert_null(rr_policy_match_cuda_only(p, "nvidia-ml-py"));
	assert_int_equal(rr_policy_load_buffer(p, user, strlen(user), "site.json", &e), RR_OK);
	/* vllm appended, apex replaced in place, the NVML exemption removed */
	assert_int_equal(rr_policy_count(p, RR_POL_GPU_FAMILY), n + 1);
	assert_string_equal(rr_policy_match_gpu_family(p, "vllm"), "ours");
	assert_null(rr_policy_match_gpu_family(p, "apex"));
	assert_string_equal(rr_policy_match_gpu_family(p, "apex2"), "renamed");
	assert_int_equal(rr_policy_count(p, RR_POL_NOT_CUDA_ONLY), 0);
	/* nvidia-ml-py has no -cuNN suffix: still not CUDA-only by pattern */
	assert_null(rr_policy_match_cuda_only(p, "nvidia-ml-py"));
	rr_policy_free(p);
}

/* the names a clash group's finite pattern spells out (for uv's exclude-dependencies) */
static void test_clash_members(void **state)
{
	struct rr_strv v = RR_STRV_INIT;
	struct rr_policy *p = rr_policy_new();
	rr_error e = RR_ERROR_INIT;
	const char *user = "{\"schema\": 1, \"clash_groups\": ["
			   "{\"id\": \"a\", \"module\": \"a\", \"pattern\": \"^a[0-9]$\", \"reason\": \"r\"},"
			   "{\"id\": \"b\", \"module\": \"b\", \"pattern\": \"b(x|y)\", \"reason\": \"r\"},"
			   "{\"id\": \"c\", \"module\": \"c\", \"pattern\": \"^c\\\\.d(-(e|f))?$\", \"reason\": \"r\"}]}";
	(void)state;

	assert_true(rr_policy_clash_members(pol_, "triton", &v));
	assert_int_equal(v.n, 8);
	assert_string_equal(v.v[0], "triton");
	assert_string_equal(v.v[2], "pytorch-triton-rocm");
	assert_string_equal(v.v[7], "triton-ascend");
	rr_strv_release(&v);
	assert_true(rr_policy_clash_members(pol_, "onnxruntime", &v));
	assert_int_equal(v.n, 7);
	assert_int_equal(rr_strv_find(&v, "onnxruntime"), 6); /* the group left out comes last */
	assert_true(rr_strv_find(&v, "onnxruntime-migraphx") >= 0);
	rr_strv_release(&v);
	assert_true(rr_policy_clash_members(pol_, "cv2", &v));
	assert_int_equal(v.n, 4);
	assert_true(rr_strv_find(&v, "opencv-contrib-python-headless") >= 0);
	assert_true(rr_strv_find(&v, "opencv-python") >= 0);
	rr_strv_release(&v);
	assert_false(rr_policy_clash_members(pol_, "no-such-group", &v));

	/* a class, an unanchored pattern: no finite list; nested groups and \\. are fine */
	assert_int_equal(rr_policy_load_buffer(p, user, strlen(user), "u.json", &e), RR_OK);
	assert_false(rr_policy_clash_members(p, "a", &v));
	assert_false(rr_policy_clash_members(p, "b", &v));
	assert_int_equal(v.n, 0);
	assert_true(rr_policy_clash_members(p, "c", &v));
	assert_int_equal(v.n, 3);
	assert_string_equal(v.v[0], "c.d-e");
	assert_string_equal(v.v[1], "c.d-f");
	assert_string_equal(v.v[2], "c.d");
	rr_strv_release(&v);
	rr_policy_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_loads),
	    cmocka_unit_test(test_gpu_family),
	    cmocka_unit_test(test_cuda_only),
	    cmocka_unit_test(test_libraries),
	    cmocka_unit_test(test_versions_labels_urls),
	    cmocka_unit_test(test_clash_groups),
	    cmocka_unit_test(test_clash_members),
	    cmocka_unit_test(test_load_errors),
	    cmocka_unit_test(test_user_overrides),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
