// The agent generator: jobs arrive (Poisson); each job is a DAG of LLM calls: a planner, then
// stages of fan-out (parallel workers that read the previous call's output) and fan-in (an
// aggregator that reads every worker's output). Ids follow a Boost.Graph topological order,
// so every dep names an earlier request.
#include <algorithm>

#include <fmt/format.h>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

#include "traces/generator_kinds.h"
#include "traces/limits.h"

namespace tidal::traces {
namespace {

const nlohmann::json kDefaultPrompt = {{"dist", "lognormal"}, {"median", 500}, {"sigma", 0.8}};
const nlohmann::json kDefaultOutput = {{"dist", "lognormal"}, {"median", 150}, {"sigma", 0.8}};
const nlohmann::json kDefaultStages = {{"dist", "fixed"}, {"value", 2}};
const nlohmann::json kDefaultFanOut = {{"dist", "uniform"}, {"min", 2}, {"max", 6}};

using JobGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;

struct AgentParams {
  double job_rate = 0.0;  // jobs per second (after rate_scale)
  Distribution stages;
  Distribution fan_out;
  LengthDistributions lengths;  // each call's own prompt tokens and its output
};

// One job: calls, their own prompt and output tokens, and the edges dep -> user.
struct Job {
  JobGraph graph;
  std::vector<int64_t> own_prompt_tokens;  // [num_calls]
  std::vector<int64_t> output_tokens;      // [num_calls]
};

constexpr size_t kMaxJobCalls = 1'000'000;

Job build_job(const AgentParams& params, const SpecObject& spec, Rng& structure_rng,
              Rng& prompt_rng, Rng& output_rng) {
  Job job;
  auto add_call = [&]() {
    if (job.output_tokens.size() == kMaxJobCalls) {
      spec.fail("fan_out",
                fmt::format("a job would have more than {} calls; lower stages or fan_out",
                            kMaxJobCalls));
    }
    job.own_prompt_tokens.push_back(params.lengths.prompt.sample_integer(prompt_rng));
    job.output_tokens.push_back(params.lengths.output.sample_integer(output_rng));
    return boost::add_vertex(job.graph);
  };
  auto previous = add_call();  // the planner
  const int64_t num_stages = params.stages.sample_integer(structure_rng);
  for (int64_t stage = 0; stage < num_stages; ++stage) {
    const int64_t num_workers = params.fan_out.sample_integer(structure_rng);
    std::vector<JobGraph::vertex_descriptor> workers;  // [num_workers]
    for (int64_t worker = 0; worker < num_workers; ++worker) {
      workers.push_back(add_call());
      boost::add_edge(previous, workers.back(), job.graph);
    }
    const auto aggregator = add_call();
    for (const auto worker : workers) boost::add_edge(worker, aggregator, job.graph);
    previous = aggregator;
  }
  return job;
}

}  // namespace

std::vector<Request> generate_agent(SpecObject& spec, const CommonSettings& settings) {
  AgentParams params;
  params.job_rate =
      spec.required_number("job_rate", 0.0, SpecObject::kInfinity, true) * settings.rate_scale;
  params.stages = parse_count(spec, "stages", kDefaultStages);
  params.fan_out = parse_count(spec, "fan_out", kDefaultFanOut);
  params.lengths = parse_lengths(spec, settings, kDefaultPrompt, kDefaultOutput);
  finish_parsing(spec, settings);
  const double horizon_s = settings.process_horizon_s();
  if (settings.duration_s) check_request_budget(spec, params.job_rate * horizon_s);
  Rng arrival_rng(stream_seed(settings.seed, Stream::arrivals));
  std::vector<Request> requests;  // [num_requests] jobs one after another
  double arrival_s = 0.0;
  for (uint64_t job_index = 0;; ++job_index) {
    if (settings.num_requests && static_cast<int64_t>(requests.size()) >= *settings.num_requests) {
      break;
    }
    arrival_s += arrival_rng.exponential(1.0 / params.job_rate);
    if (arrival_s >= horizon_s) break;
    Rng structure_rng(stream_seed(settings.seed, Stream::structure, job_index));
    Rng prompt_rng(stream_seed(settings.seed, Stream::prompts, job_index));
    Rng output_rng(stream_seed(settings.seed, Stream::outputs, job_index));
    const Job job = build_job(params, spec, structure_rng, prompt_rng, output_rng);

    std::vector<JobGraph::vertex_descriptor> reverse_order;  // [num_calls] users first
    boost::topological_sort(job.graph, std::back_inserter(reverse_order));
    const auto first_id = static_cast<int64_t>(requests.size());
    std::vector<int64_t> id_of_call(reverse_order.size());  // [num_calls]
    int64_t position = 0;
    for (auto it = reverse_order.rbegin(); it != reverse_order.rend(); ++it, ++position) {
      id_of_call[*it] = first_id + position;
    }
    for (auto it = reverse_order.rbegin(); it != reverse_order.rend(); ++it) {
      const auto call = *it;
      Request& request = requests.emplace_back();
      request.id = id_of_call[call];
      request.arrival_s = arrival_s;
      request.output_tokens = job.output_tokens[call];
      request.session_id = fmt::format("j{}", job_index);
      request.turn = static_cast<int32_t>(request.id - first_id);
      // The prompt carries the call's own text plus every input's output.
      request.prompt_tokens = job.own_prompt_tokens[call];
      for (const auto edge : boost::make_iterator_range(boost::in_edges(call, job.graph))) {
        const auto dep = boost::source(edge, job.graph);
        request.deps.push_back(id_of_call[dep]);
        request.prompt_tokens += job.output_tokens[dep];
      }
      request.prompt_tokens = std::min(request.prompt_tokens, base::kMaxTokens);
      std::sort(request.deps.begin(), request.deps.end());
    }
    check_request_budget(spec, static_cast<double>(requests.size()));
  }
  return requests;
}

}  // namespace tidal::traces
