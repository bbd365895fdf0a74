#include "kernels/fused_weights.h"

#include <stdexcept>
#include <string>

namespace tidal::kernels {
namespace {

void check_compatible(const LinearWeight& a, const LinearWeight& b, const char* what) {
  if (a.format != b.format || a.cols != b.cols || a.group_size != b.group_size) {
    throw std::invalid_argument(
        std::string(what) + ": parts differ in format, cols or group_size (" +
        weight_format_name(a.format) + " cols " + std::to_string(a.cols) + " vs " +
        weight_format_name(b.format) + " cols " + std::to_string(b.cols) + ")");
  }
}

// Appends rows [begin, begin + count) of `src` (values or codes and their scales) to `dst`.
void append_rows(const LinearWeight& src, int64_t begin, int64_t count, LinearWeight& dst) {
  const auto span = [&](const auto& from, auto& to, int64_t per_row) {
    to.insert(to.end(), from.begin() + begin * per_row, from.begin() + (begin + count) * per_row);
  };
  switch (src.format) {
    case WeightFormat::f32:
      span(src.values, dst.values, src.cols);
      break;
    case WeightFormat::int8:
      span(src.int8_codes, dst.int8_codes, src.cols);
      break;
    case WeightFormat::fp8_e4m3:
      span(src.fp8_codes, dst.fp8_codes, src.cols);
      break;
    case WeightFormat::bf16:
    case WeightFormat::fp16:
      span(src.half_bits, dst.half_bits, src.cols);
      break;
  }
  if (LinearView::has_scales(src.format)) span(src.scales, dst.scales, src.cols / src.group_size);
  dst.rows += count;
}

LinearWeight empty_like(const LinearWeight& w) {
  LinearWeight out;
  out.format = w.format;
  out.cols = w.cols;
  out.group_size = w.group_size;
  return out;
}

}  // namespace

LinearWeight concatenate_rows(const std::vector<const LinearWeight*>& parts) {
  if (parts.empty()) throw std::invalid_argument("concatenate_rows: no parts");
  for (const LinearWeight* p : parts) check_compatible(*parts.front(), *p, "concatenate_rows");
  LinearWeight out = empty_like(*parts.front());
  for (const LinearWeight* p : parts) append_rows(*p, 0, p->rows, out);
  return out;
}

LinearWeight concatenate_qkv(const LinearWeight& q, const LinearWeight& k, const LinearWeight& v) {
  return concatenate_rows({&q, &k, &v});
}

LinearWeight interleave_gate_up(const LinearWeight& gate, const LinearWeight& up) {
  check_compatible(gate, up, "interleave_gate_up");
  if (gate.rows != up.rows) {
    throw std::invalid_argument("interleave_gate_up: gate has " + std::to_string(gate.rows) +
                                " rows, up " + std::to_string(up.rows));
  }
  LinearWeight out = empty_like(gate);
  for (int64_t r = 0; r < gate.rows; ++r) {
    append_rows(gate, r, 1, out);
    append_rows(up, r, 1, out);
  }
  return out;
}

}  // namespace tidal::kernels
