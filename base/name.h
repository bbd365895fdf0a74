// An interned text: equal names share one immutable string for the life of the process. A
// request's name fields (tenant, SLO class, region, model, adapter, session) repeat across
// millions of requests; as names they cost one pointer each instead of a 32-byte std::string.
// Reads are lock-free (the pointer); making a name from text takes a mutex (base/name.cpp).
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json_fwd.hpp>

namespace tidal::base {

class Name {
 public:
  Name() = default;  // the empty name
  // Interns `text`: equal texts give names holding the same pointer.
  Name(std::string_view text);  // NOLINT(google-explicit-constructor): a name is its text
  Name(const std::string& text) : Name(std::string_view(text)) {}  // NOLINT
  Name(const char* text) : Name(std::string_view(text)) {}         // NOLINT

  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }  // NOLINT: reads as its text
  operator std::string_view() const { return *text_; }    // NOLINT
  bool empty() const { return text_->empty(); }
  size_t size() const { return text_->size(); }
  const char* c_str() const { return text_->c_str(); }
  void clear() { text_ = &kEmpty; }

  // Interned: equal texts, equal pointers.
  friend bool operator==(Name a, Name b) { return a.text_ == b.text_; }
  friend bool operator==(Name a, std::string_view b) { return *a.text_ == b; }
  friend bool operator==(Name a, const std::string& b) { return *a.text_ == b; }
  friend bool operator==(Name a, const char* b) { return *a.text_ == b; }
  // By text, as the strings they replace sorted.
  friend std::strong_ordering operator<=>(Name a, Name b) { return *a.text_ <=> *b.text_; }

 private:
  static const std::string kEmpty;
  const std::string* text_ = &kEmpty;
};

std::ostream& operator<<(std::ostream& out, Name name);
void to_json(nlohmann::json& j, const Name& name);
void from_json(const nlohmann::json& j, Name& name);

}  // namespace tidal::base

template <>
struct std::hash<tidal::base::Name> {
  size_t operator()(tidal::base::Name name) const noexcept {
    return std::hash<const std::string*>()(&name.str());
  }
};

// A name formats as its text and takes no format spec ("{}"; a spec fails to compile). Its own
// parse, not formatter<string_view>'s: GCC 12 at -O3 warns falsely (-Wstringop-overflow) where
// fmt 9's fill parsing is inlined for it.
template <>
struct fmt::formatter<tidal::base::Name> {
  constexpr auto parse(fmt::format_parse_context& ctx) -> decltype(ctx.begin()) {
    if (ctx.begin() != ctx.end() && *ctx.begin() != '}') {
      throw fmt::format_error("a name takes no format spec");
    }
    return ctx.begin();
  }
  auto format(tidal::base::Name name, fmt::format_context& ctx) const -> decltype(ctx.out()) {
    const std::string& text = name.str();
    return std::copy(text.begin(), text.end(), ctx.out());
  }
};
