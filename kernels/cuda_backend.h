#pragma once
// The CUDA backend: the engine's Backend interface on one NVIDIA GPU.
//
// Storage: FP16 and BF16 tensors hold their format's own 16 bits (native
// storage: half the bytes of FP32, what the tensor cores read and cuBLAS
// writes directly); every other tensor is an FP32 device array holding
// values exactly representable in its dtype (TF32, FP8), the CPU backend's
// contract. Either way each op rounds its output to the dtype with the
// shared RNE cast (engine/numeric/scalar_cast.h), so a tensor holds the same
// values in both storages, and results compare closely with the CPU
// reference (bit for bit where the op is elementwise or sums in the CPU's
// order). Kernels read and write through gpu::Values (cuda_common.cuh).
//
// Plain C++ interface: callers need no CUDA headers (the handles are opaque).
// Device 0 only; one backend is used by one thread at a time, like the CPU's.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/common/recently_used.h"
#include "kernels/device_info.h"
#include "kernels/cuda_telemetry_queue.h"

// CUDA's and cuBLAS's handle types, declared as their headers do.
struct CUstream_st;
struct cublasContext;

namespace plab {

namespace gpu {
class LtBiasGemm;  // cuda_lt_gemm.cuh
struct UnscaleScalars;  // cuda_reduction_ops.cu
struct UpdateGateView;  // cuda_optim_ops.cu
}
class CudaStepGraph;  // cuda_step_graph.cu

// What a multi-tensor launch's table describes, word by word: each tensor's
// storage, size and dtype (a missing one as zeros).
struct TableKey {
    std::vector<std::uint64_t> words;
    void add(const Tensor* t) {
        words.push_back(t ? reinterpret_cast<std::uintptr_t>(t->raw()) : 0u);
        words.push_back(t ? t->size() : 0u);
        words.push_back(t ? static_cast<std::uint64_t>(t->dtype()) : 0u);
    }
};

class CudaBackend final : public Backend {
public:
    // Throws plab::Error when there is no device or CUDA / cuBLAS fail to start.
    CudaBackend();
    ~CudaBackend() override;
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;


    // cuda_backend.cu
    Tensor allocate(Shape shape, FormatId dtype) override;
    std::uint64_t allocations() const override { return allocations_; }
    void upload(const float* host, Tensor& t) override;
    void download(const Tensor& t, float* host) override;
    void queue_upload(const float* host, Tensor& t) override;
    void convert(const Tensor& src, Tensor& dst) override;

    // cuda_gemm.cu
    void gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec) override;
    // Where GEMMs run. fixed_order: the CPU's summation order and so its bits
    // (cuda_fixed_order_gemm.cuh); tensor_cores: cuBLAS(Lt), fast, its own
    // order; automatic: fixed order up to 2^25 multiply-adds (the lab's toy
    // models, where it costs nothing), tensor cores beyond.
    enum class GemmRoute { automatic, fixed_order, tensor_cores };
    void set_gemm_route(GemmRoute route) { gemm_route_ = route; }
    // Why cuBLASLt last refused a GEMM with a fused bias ("" when it never
    // did): such a GEMM then takes cublasGemmEx, slower, with the same values.
    std::string lt_refusal() const;
    // FP16 / BF16 tensors in 16 bits (the default; PLAB_CUDA_STORAGE=fp32
    // turns it off) or in FP32 words like the rest: the same values either
    // way. Chosen before the first FP16 or BF16 tensor (plab::Error after it).
    void set_native_16bit(bool native);
    bool native_16bit() const { return native_16bit_; }

    // cuda_elementwise_ops.cu
    void activation_forward(Activation a, const Tensor& x, Tensor& y) override;
    void activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) override;
    void accumulate(const Tensor& src, Tensor& dst, bool overwrite) override;
    void scale_in_place(Tensor& x, float factor);  // not in Backend, as on the CPU: for the tests

    // cuda_loss_ops.cu (the two returning the loss to the host: not in Backend, as on the CPU)
    float softmax_cross_entropy(const Tensor& logits, const Tensor& labels, Tensor& probs);
    void softmax_cross_entropy_backward(const Tensor& probs, const Tensor& labels, float scale,
                                        Tensor& dlogits) override;
    float mse_loss(const Tensor& pred, const Tensor& target);
    void softmax_cross_entropy_into(const Tensor& logits, const Tensor& labels, FormatId compute, Tensor& probs,
                                    Tensor& loss) override;
    void mse_loss_into(const Tensor& pred, const Tensor& target, FormatId compute, Tensor& loss) override;
    void mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) override;

    // cuda_layer_norm_ops.cu
    void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                            FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd) override;
    void layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                             const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                             Tensor& dbeta) override;

    // cuda_batch_norm_ops.cu
    void batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, float momentum,
                            FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd, Tensor& running_mean,
                            Tensor& running_var) override;
    void batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& running_mean,
                              const Tensor& running_var, float eps, FormatId compute, Tensor& y) override;
    void batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                             const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                             Tensor& dbeta) override;

    // cuda_attention_ops.cu
    void token_scores(const Tensor& q, const Tensor& k, int tokens, Tensor& scores) override;
    void token_scores_backward(const Tensor& q, const Tensor& k, const Tensor& dscores, int tokens, Tensor& dq,
                               Tensor& dk) override;
    void token_mix(const Tensor& probs, const Tensor& v, int tokens, Tensor& out) override;
    void token_mix_backward(const Tensor& probs, const Tensor& v, const Tensor& dout, int tokens, Tensor& dprobs,
                            Tensor& dv) override;
    void scaled_softmax(const Tensor& x, float scale, int group, FormatId compute, bool causal,
                        Tensor& probs) override;
    void scaled_softmax_backward(const Tensor& probs, const Tensor& dprobs, float scale, int group,
                                 Tensor& dx) override;
    void embedding_forward(const Tensor& ids, const Tensor& tokens, const Tensor& positions, Tensor& out) override;
    void embedding_backward(const Tensor& ids, const Tensor& dout, Tensor& dtokens, Tensor& dpositions) override;
    void split_heads(const Tensor& x, int context, int heads, Tensor& out) override;
    void merge_heads(const Tensor& x, int context, int heads, Tensor& out) override;

    // cuda_reduction_ops.cu
    void column_sums(const Tensor& x, Tensor& sums) override;
    // Not in Backend, here as on the CPU: the per-tensor pieces the tests
    // set beside the CPU's references.
    bool unscale_and_check(const Tensor& src, float inv_scale, Tensor& dst);
    int unscale_all(std::span<const UnscaleJob> jobs, float inv_scale);
    void unscale_all_flagged(std::span<const UnscaleJob> jobs, const Tensor& state, Tensor& found_inf) override;
    void update_scaler(const Tensor& rule, const Tensor& found_inf, Tensor& state) override;
    float sum_of_squares(const Tensor& x);
    std::vector<float> sum_of_squares_all(std::span<const Tensor* const> xs);
    void norm_and_clip(std::span<Tensor* const> xs, const Tensor* max_norm, const Tensor* skip,
                       Tensor& norm) override;
    float finite_amax(const Tensor& x) override;
    TensorComparison compare(const Tensor& a, const Tensor& b);
    void queue_compare(const Tensor& a, const Tensor& b, TensorComparison* out) override;

    // cuda_optim_ops.cu (the first four per tensor or ungated, for the tests)
    UpdateCount sgd_update(Tensor& w, const Tensor& g, Tensor& velocity, const SgdStep& step);
    UpdateCount adamw_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamWStep& step);
    std::vector<UpdateCount> sgd_update_all(std::span<const UpdateJob> jobs, const SgdStep& step);
    std::vector<UpdateCount> adamw_update_all(std::span<const UpdateJob> jobs, const AdamWStep& step);
    void sgd_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) override;
    void adamw_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) override;

    // cuda_telemetry_ops.cu
    void queue_telemetry(const TelemetryRequest& request) override;
    void queue_download(const Tensor& t, float* host) override;
    void wait_for_queued() override;
    TensorStatsPair tensor_stats_pair(const Tensor& x, double divisor);
    void add_to_histogram(const Tensor& x, double divisor, Log2Histogram& hist);
    void add_to_histogram_pair(const Tensor& x, double divisor, Log2Histogram& held, Log2Histogram& divided);

    // cuda_step_graph.cu: the step captured from the stream into a CUDA graph.
    std::unique_ptr<StepGraph> capture(const std::function<void()>& launches) override;

private:
    explicit CudaBackend(const cuda::DeviceInfo& device);  // the device the public constructor found
    friend class CudaStepGraph;
    // Device memory for the backend's own use (telemetry results): neither
    // zeroed nor counted by allocations(), and made even while capturing.
    Tensor device_tensor(Shape shape, FormatId dtype = FormatId::fp32);
    // A captured step launched; its results land at the next wait_for_queued().
    void replay_graph(CudaStepGraph& graph);
    // The copies of q's result slots to its pinned chunks, on the stream.
    void copy_results_to_host(TelemetryQueue& q);
    // After the wait: q's results into their targets, its readbacks to the
    // host; the first bad label's message ("" when none).
    std::string land(const TelemetryQueue& q);
    // Device scratch slot `slot` (cuda_common.cuh's ScratchSlot) grown to at
    // least `bytes`; kept between calls.
    void* scratch(int slot, std::size_t bytes);
    // The device copy of a multi-tensor launch's table (`bytes` from `host`)
    // for table slot `slot`, found by `key` (TableKey: the tensors the table
    // describes; the table's own bytes hold padding): the copy made for the
    // same key before, when there is one (a training step's tables repeat),
    // else a new one, copied in stream order through the pinned staging. No
    // copy in the steady state: what a CUDA graph of the step will need.
    const void* device_table(int slot, const TableKey& key, const void* host, std::size_t bytes, const char* op);
    // Device memory for the results of queued telemetry request `slot`.
    void* telemetry_slot(std::size_t slot);
    void release_telemetry();  // the pinned chunks and the event
    // Copies `bytes` of device memory to pinned staging now (stream-ordered),
    // and on to `host` at the next wait_for_queued().
    void stage_readback(const void* device, std::size_t bytes, void* host, const char* op);
    // `bytes` of pinned staging, valid until the next wait_for_queued().
    void* stage_bytes(std::size_t bytes);
    // unscale_all's launch (cuda_reduction_ops.cu): the device flags, one int per job.
    int* launch_unscale_all(std::span<const UnscaleJob> jobs, const gpu::UnscaleScalars& k, const char* op);
    // sum_of_squares_all's launches: the device sums, one float per tensor,
    // with one more float of room after them.
    float* launch_squares(std::span<const Tensor* const> xs, const char* op);
    // The update of every job in one launch of the per-element update
    // `element`, gated by `gate`: the device counts, two per job.
    template <typename Element>
    unsigned long long* launch_update_all(std::span<const UpdateJob> jobs, Element element, bool adamw,
                                          const gpu::UpdateGateView& gate);
    // The same, then the counts copied back (one sync).
    template <typename Element>
    std::vector<UpdateCount> update_all(std::span<const UpdateJob> jobs, Element element, bool adamw);
    // The same, gated on the device, the counts and the step count left to wait_for_queued().
    template <typename Element>
    void update_all_on_device(std::span<const UpdateJob> jobs, Element element, const UpdateGate& gate, bool adamw);
    void release();  // the stream and cuBLAS handle (destructor, failed constructor)
    bool runs_fixed_order(int m, int n, int k) const;
    void fixed_order_gemm(const Tensor& a, const Tensor& b, Tensor& c, const GemmSpec& spec);

    CUstream_st* stream_ = nullptr;  // cudaStream_t: every op runs on it, in order
    cublasContext* blas_ = nullptr;  // cublasHandle_t, bound to stream_
    std::unique_ptr<gpu::LtBiasGemm> lt_;  // GEMMs with a fused bias
    GemmRoute gemm_route_ = GemmRoute::automatic;
    bool native_16bit_ = true;
    bool allocated_16bit_ = false;  // a tensor of a 16-bit dtype exists: the storage is chosen
    // Device scratch kept between calls: GEMM operands in the compute format,
    // reduction partials.
    std::vector<Tensor> scratch_;
    // Telemetry scans run on the device as requests are queued; their results
    // come back in one copy when wait_for_queued() is called.
    TelemetryQueue telemetry_;
    // device_table's copies, a few per slot: a training step keeps two per
    // slot (the mixed run's and the twin's), an evaluation or a fork a few
    // more; room for all without dropping one.
    static constexpr std::size_t kTablesPerSlot = 8;
    std::vector<RecentlyUsed<std::vector<std::uint64_t>, Tensor, kTablesPerSlot>> tables_;
    std::uint64_t allocations_ = 0;
    // While capturing: where queue_upload notes its copies for the replays.
    std::vector<QueuedUpload>* capture_uploads_ = nullptr;
    CudaStepGraph* replayed_ = nullptr;  // launched, not landed yet
};

// The CUDA backend on device 0; plab::Error("no CUDA device found; use
// --backend cpu") when this machine has none.
std::unique_ptr<Backend> make_cuda_backend();
// Whether make_cuda_backend() would find a device (never throws).
bool cuda_device_present();
// Device bytes that the CUDA backends of this process hold in tensors and
// scratch (not the CUDA context, not cuBLAS's own): the most held at once
// since the last reset, which starts it again from what is held now.
std::uint64_t cuda_peak_tensor_bytes();
void cuda_reset_peak_tensor_bytes();
// Times the host has waited for a device (stream and event synchronizes),
// by every CUDA backend of the process together. A training step should add
// one, at its finish.
std::uint64_t cuda_host_waits();

}  // namespace plab
