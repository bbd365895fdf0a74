// Profile JSON: round trip and strict loading with JSON paths in the errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/input_error.h"
#include "perf/profile.h"
#include "tests/scratch_folder.h"

namespace tidal::perf {
namespace {

const std::string kScratch = "tidal_perf";

Profile sample_profile() {
  Profile p;
  p.provenance = {"tidal-cuda", "NVIDIA H200", "2026-10-01", "0123abcd", "tidal profile"};
  p.model = {"llama-3-8b", 4096, 32, 8, 14336, 128256, true};
  p.tp = 2;
  p.weight_dtype = DType::fp8;
  p.kv_dtype = DType::fp8;
  p.operators[OpClass::qkv_proj] = {
      OpScope::layer, TimeSource::measured, {1, 64, 4096}, {1.25e-5, 2.0e-5, 0.1 / 3}};
  p.operators[OpClass::lm_head] = {OpScope::step, TimeSource::roofline, {}, {}};
  p.attention_source = TimeSource::measured;
  p.attention.prefill_chunk_tokens = {16, 32};
  p.attention.prefill_context_tokens = {0, 512};
  p.attention.prefill_seconds = {1e-6, 1.5e-6, 2e-6, 2.5e-6};
  p.attention.decode_batch_sizes = {1};
  p.attention.decode_context_tokens = {10, 20, 30};
  p.attention.decode_seconds = {1e-6, 2e-6, 3.3e-6};
  p.allreduce = {TimeSource::measured, {4096, 8192}, {1e-5, 1.1e-5}};
  p.cpu_overhead = {TimeSource::roofline, {}, {}};
  return p;
}

std::string load_error(const nlohmann::json& json, const std::string& name) {
  const ScratchFolder scratch(kScratch, "load_error");
  const std::string path = (scratch.path() / name).string();
  std::ofstream(path) << json.dump();
  try {
    load_profile(path);
  } catch (const InputError& e) {
    std::string message = e.what();
    return message.substr(path.size() + 2);  // drop "<path>: "
  }
  return "no error";
}

nlohmann::json sample_json() {
  const ScratchFolder scratch(kScratch, "sample");
  const std::string path = (scratch.path() / "sample.json").string();
  save_profile(sample_profile(), path);
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(ProfileJson, RoundTrips) {
  const ScratchFolder scratch(kScratch, "round_trip");
  const std::string path = (scratch.path() / "round_trip.json").string();
  save_profile(sample_profile(), path);
  EXPECT_EQ(load_profile(path), sample_profile());
  // Saving again writes the same bytes.
  const std::string again = (scratch.path() / "round_trip_again.json").string();
  save_profile(load_profile(path), again);
  std::ifstream a(path);
  std::ifstream b(again);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(a), {}),
            std::string(std::istreambuf_iterator<char>(b), {}));
}

TEST(ProfileJson, CpuOverheadShareOfOperatorTime) {
  Profile p = sample_profile();
  p.cpu_overhead = {TimeSource::measured, {1, 8}, {1e-6, 2e-6}, 0.025};
  const ScratchFolder scratch(kScratch, "share");
  const std::string path = (scratch.path() / "share.json").string();
  save_profile(p, path);
  EXPECT_EQ(load_profile(path), p);
  std::ifstream in(path);
  nlohmann::json json = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(json["cpu_overhead"]["share_of_operator_time"].get<double>(), 0.025);
  // Profiles written before the share load with 0.
  json["cpu_overhead"].erase("share_of_operator_time");
  const std::string older = (scratch.path() / "share_absent.json").string();
  std::ofstream(older) << json.dump();
  EXPECT_DOUBLE_EQ(load_profile(older).cpu_overhead.share_of_operator_time, 0.0);
  json["cpu_overhead"]["share_of_operator_time"] = 1.5;
  EXPECT_EQ(load_error(json, "share_high.json"),
            "cpu_overhead.share_of_operator_time: must be in [-0.5, 1]");
}

TEST(ProfileJson, UnknownKeysNameTheirPath) {
  nlohmann::json json = sample_json();
  json["operators"]["qkv_proj"]["colour"] = "blue";
  EXPECT_EQ(load_error(json, "unknown.json"), "operators.qkv_proj.colour: unknown key");
  json = sample_json();
  json["provenance"]["host"] = "x";
  EXPECT_EQ(load_error(json, "unknown2.json"), "provenance.host: unknown key");
  json = sample_json();
  json["operators"]["flux_capacitor"] = json["operators"]["qkv_proj"];
  EXPECT_EQ(load_error(json, "unknown3.json"), "operators.flux_capacitor: unknown operator");
}

TEST(ProfileJson, WrongTypesAndShapes) {
  nlohmann::json json = sample_json();
  json["operators"]["qkv_proj"]["seconds"][1] = "fast";
  EXPECT_EQ(load_error(json, "type.json"), "operators.qkv_proj.seconds[1]: must be a number");
  json = sample_json();
  json["tp"] = "two";
  EXPECT_EQ(load_error(json, "tp.json"), "tp: must be an integer");
  json = sample_json();
  json["operators"]["qkv_proj"]["num_tokens"] = {1, 64, 32};
  EXPECT_EQ(load_error(json, "order.json"),
            "operators.qkv_proj.num_tokens[2]: must be greater than the previous value");
  json = sample_json();
  json["operators"]["qkv_proj"]["seconds"].erase(0);
  EXPECT_EQ(load_error(json, "size.json"), "operators.qkv_proj.seconds: has 2 values, expected 3");
  json = sample_json();
  json.erase("allreduce");
  EXPECT_EQ(load_error(json, "missing.json"), "allreduce: missing");
  json = sample_json();
  json["attention"]["decode"]["seconds"][0].erase(2);
  EXPECT_EQ(load_error(json, "grid.json"), "attention.decode.seconds[0]: has 2 values, expected 3");
  json = sample_json();
  json["attention"]["prefill"]["chunk_tokens"][0] = 0;
  EXPECT_EQ(load_error(json, "chunk.json"),
            "attention.prefill.chunk_tokens[0]: must be >= 1 (a chunk has at least one new token)");
  json = sample_json();
  json["attention_source"] = "roofline";
  EXPECT_EQ(load_error(json, "attention.json"),
            "attention: must be absent when attention_source is \"roofline\"");
  json = sample_json();
  json["kv_dtype"] = "fp9";
  EXPECT_EQ(
      load_error(json, "dtype.json"),
      "kv_dtype: unknown dtype \"fp9\"; expected one of fp32, bf16, fp16, fp8, int8, int4, fp4");
}

TEST(ProfileJson, RooflineSectionsCarryNoTables) {
  Profile p = sample_profile();
  p.cpu_overhead.num_seqs = {8};
  p.cpu_overhead.seconds = {1e-3};
  const ScratchFolder scratch(kScratch, "roofline_table");
  const std::string path = (scratch.path() / "roofline_table.json").string();
  try {
    save_profile(p, path);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": cpu_overhead: a roofline section has no table");
  }
}

TEST(ProfileJson, MissingFileAndBadJson) {
  const ScratchFolder scratch(kScratch, "bad_files");
  EXPECT_THROW(load_profile((scratch.path() / "does_not_exist.json").string()), InputError);
  const std::string path = (scratch.path() / "broken.json").string();
  std::ofstream(path) << "{\"format\": ";
  EXPECT_THROW(load_profile(path), InputError);
}

}  // namespace
}  // namespace tidal::perf
