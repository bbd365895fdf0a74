// Helpers of the compressed-input tests: gzip and zstd bytes of a text, made with zlib and
// libzstd at run time (no binary fixtures in the repository).
#pragma once

#include <zlib.h>
#include <zstd.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace tidal::base::testing {

// One gzip member holding `text`.
inline std::string gzip_bytes(std::string_view text, int level = Z_DEFAULT_COMPRESSION) {
  z_stream deflater{};
  if (deflateInit2(&deflater, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw std::runtime_error("deflateInit2 failed");
  }
  std::string out(deflateBound(&deflater, static_cast<uLong>(text.size())), '\0');
  deflater.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  deflater.avail_in = static_cast<uInt>(text.size());
  deflater.next_out = reinterpret_cast<Bytef*>(out.data());
  deflater.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&deflater, Z_FINISH);
  out.resize(deflater.total_out);
  deflateEnd(&deflater);
  if (status != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
  return out;
}

// One zstd frame holding `text`, with a content checksum (as the zstd tool writes it).
inline std::string zstd_bytes(std::string_view text, int level = 3) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const size_t size = ZSTD_compress2(context, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(context);
  if (ZSTD_isError(size)) throw std::runtime_error(ZSTD_getErrorName(size));
  out.resize(size);
  return out;
}

}  // namespace tidal::base::testing
