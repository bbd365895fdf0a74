// zstd decompression (libzstd) of a byte stream, frame after frame: concatenated zstd files
// read as one.
#pragma once

#include <memory>

#include "base/byte_stream.h"

namespace tidal::base {

// Reads `compressed` (which starts with the zstd magic) in kCompressedChunkBytes chunks.
// Windows up to zstd's default decoder limit (128 MiB) are accepted; `zstd --long=31` files
// are refused. StreamError on corrupt data and on a file that ends inside a frame.
std::unique_ptr<ByteStream> make_zstd_stream(std::unique_ptr<ByteStream> compressed);

}  // namespace tidal::base
