// Builds a Profile from Vidur's public profiling CSVs (see ../shared/profiles/README.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "perf/profile.h"

namespace tidal::perf {

// vidur_dir: the folder holding compute/, network/ and legacy_oss_release_6555c85/.
// gpu: Vidur's label, "a100", "a40" or "h100". model_dir_name: the model's folder under
// compute/<gpu>/<org>/, e.g. "Llama-2-70b-hf". tp: rows with num_tensor_parallel_workers == tp.
// Uses the median column, converts milliseconds to seconds. Attention comes from the legacy A100
// table when gpu, model shape and tp match it, otherwise it is marked roofline. Missing files,
// rows or columns are InputErrors naming the file and line.
Profile import_vidur(const std::string& vidur_dir, std::string_view gpu,
                     std::string_view model_dir_name, int32_t tp);

}  // namespace tidal::perf
