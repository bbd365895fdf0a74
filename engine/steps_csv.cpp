#include "engine/steps_csv.h"

#include <iterator>

#include <fmt/format.h>

#include "engine/run_writer.h"

namespace tidal::engine {

void write_steps_csv(const EngineRun& run, std::ostream& out) {
  fmt::memory_buffer buf;
  buf.append(std::string_view(
      "step,start_s,duration_s,execute_s,draft_s,num_seqs,num_batched_tokens,num_prefill_tokens,"
      "num_decode_tokens,num_spec_tokens,num_accepted_tokens,num_preempted,swap_out_blocks,"
      "swap_in_blocks,seqs\n"));
  for (size_t i = 0; i < run.steps.size(); ++i) {
    const StepRecord& s = run.steps[i];
    int64_t num_batched = 0;
    for (const sched::ScheduledSeq& seq : s.seqs) num_batched += seq.num_new_tokens;
    fmt::format_to(std::back_inserter(buf), "{},{},{},{},{},{},{},{},{},{},{},{},{},{},", i,
                   format_seconds(s.start_ns), format_seconds(s.end_ns - s.start_ns),
                   format_seconds(s.execute_ns), format_seconds(s.draft_ns), s.seqs.size(),
                   num_batched, s.num_prefill_tokens, s.num_decode_tokens, s.num_draft_tokens,
                   s.num_accepted_tokens, s.num_preempted, s.num_swap_out_blocks,
                   s.num_swap_in_blocks);
    for (size_t j = 0; j < s.seqs.size(); ++j) {
      const sched::ScheduledSeq& seq = s.seqs[j];
      if (j > 0) buf.push_back(' ');
      if (seq.num_spec_tokens > 0) {
        fmt::format_to(std::back_inserter(buf), "{}+{}:{}",
                       seq.num_new_tokens - seq.num_spec_tokens, seq.num_spec_tokens,
                       seq.num_context_tokens);
      } else {
        fmt::format_to(std::back_inserter(buf), "{}:{}", seq.num_new_tokens,
                       seq.num_context_tokens);
      }
    }
    buf.push_back('\n');
    if (buf.size() > (1 << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace tidal::engine
