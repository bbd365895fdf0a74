// Prints, as JSON lines, the Vidur-imported H100 profile's and the roofline model's predictions
// for Llama-2-70B at TP 4 and 8 (prefill of a 1,500-token prompt; a decode step at batch 1 and 16
// with context 1,500), then the cost of one step_seconds() call for several batch shapes.
//   build/bench/perf_import [vidur_dir]
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/input_error.h"
#include "perf/perf.h"

namespace {

using tidal::perf::SeqWork;
using tidal::perf::StepTimeModel;

struct Predictor {
  std::string name;
  std::unique_ptr<StepTimeModel> model;
};

void print_predictions(const Predictor& predictor, int32_t tp) {
  const std::vector<SeqWork> prefill = {{1500, 0}};
  const std::vector<SeqWork> decode_1(1, SeqWork{1, 1500});
  const std::vector<SeqWork> decode_16(16, SeqWork{1, 1500});
  fmt::print(
      "{{\"bench\":\"perf_import\",\"figure\":\"prediction\",\"model\":\"llama-2-70b\","
      "\"gpu\":\"H100-SXM\",\"tp\":{},\"predictor\":\"{}\",\"prefill_1500_s\":{:.6f},"
      "\"decode_b1_ctx1500_s_per_token\":{:.6f},\"decode_b16_ctx1500_s_per_token\":{:.6f}}}\n",
      tp, predictor.name, predictor.model->step_seconds(prefill),
      predictor.model->step_seconds(decode_1), predictor.model->step_seconds(decode_16));
}

// Per operator class, so the two predictors can be compared where they differ.
void print_breakdown(const Predictor& predictor, int32_t tp, const std::string& shape,
                     const std::vector<SeqWork>& batch) {
  const tidal::perf::StepBreakdown breakdown = predictor.model->breakdown(batch);
  std::string classes;
  for (int i = 0; i < tidal::perf::kNumOpClasses; ++i) {
    const auto op = static_cast<tidal::perf::OpClass>(i);
    classes += fmt::format("{}\"{}\":{:.6f}", i == 0 ? "" : ",", tidal::perf::op_class_name(op),
                           breakdown[op]);
  }
  fmt::print(
      "{{\"bench\":\"perf_import\",\"figure\":\"breakdown_s\",\"tp\":{},\"predictor\":\"{}\","
      "\"batch\":\"{}\",{}}}\n",
      tp, predictor.name, shape, classes);
}

void print_call_cost(const Predictor& predictor, int32_t tp, const std::string& shape,
                     const std::vector<SeqWork>& batch) {
  constexpr int kCalls = 1'000'000;
  double sink = 0.0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) sink += predictor.model->step_seconds(batch);
  const auto stop = std::chrono::steady_clock::now();
  const double ns = std::chrono::duration<double, std::nano>(stop - start).count() / kCalls;
  fmt::print(
      "{{\"bench\":\"perf_import\",\"figure\":\"step_seconds_call\",\"tp\":{},"
      "\"predictor\":\"{}\",\"batch\":\"{}\",\"num_seqs\":{},\"ns_per_call\":{:.1f},"
      "\"checksum\":{:.6e}}}\n",
      tp, predictor.name, shape, batch.size(), ns, sink);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string vidur_dir =
      argc > 1 ? argv[1] : std::string(TIDAL_SHARED_DIR) + "/profiles/vidur";
  try {
    const auto& model = tidal::perf::find_model("llama-2-70b", "bench");
    const auto& gpu = tidal::perf::find_gpu("H100-SXM", "bench");
    for (int32_t tp : {4, 8}) {
      tidal::perf::Deployment deployment;
      deployment.tp = tp;
      deployment.weight_dtype = tidal::perf::DType::fp16;
      deployment.kv_dtype = tidal::perf::DType::fp16;
      const auto import_start = std::chrono::steady_clock::now();
      const tidal::perf::Profile profile =
          tidal::perf::import_vidur(vidur_dir, "h100", "Llama-2-70b-hf", tp);
      std::vector<Predictor> predictors;
      predictors.push_back({"vidur_profile", tidal::perf::make_profiled_model(
                                                 profile, model, gpu, deployment, "bench")});
      const auto import_stop = std::chrono::steady_clock::now();
      predictors.push_back({"roofline", tidal::perf::make_roofline_model(model, gpu, deployment)});
      fmt::print(
          "{{\"bench\":\"perf_import\",\"figure\":\"import\",\"tp\":{},\"import_and_build_ms\":{:."
          "1f}}}\n",
          tp, std::chrono::duration<double, std::milli>(import_stop - import_start).count());
      for (const Predictor& predictor : predictors) print_predictions(predictor, tp);
      for (const Predictor& predictor : predictors) {
        print_breakdown(predictor, tp, "prefill_1500", {{1500, 0}});
        print_breakdown(predictor, tp, "decode_1", std::vector<SeqWork>(1, SeqWork{1, 1500}));
      }
      for (const Predictor& predictor : predictors) {
        print_call_cost(predictor, tp, "decode_1", std::vector<SeqWork>(1, SeqWork{1, 1500}));
        print_call_cost(predictor, tp, "decode_16", std::vector<SeqWork>(16, SeqWork{1, 1500}));
        print_call_cost(predictor, tp, "decode_256", std::vector<SeqWork>(256, SeqWork{1, 1500}));
        std::vector<SeqWork> mixed(63, SeqWork{1, 900});
        mixed.push_back({512, 1024});
        print_call_cost(predictor, tp, "chunked_512_plus_63_decodes", mixed);
      }
    }
  } catch (const tidal::InputError& e) {
    std::fprintf(stderr, "perf_import: %s\n", e.what());
    return 1;
  }
  return 0;
}
