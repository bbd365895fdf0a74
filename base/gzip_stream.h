// gzip decompression (zlib) of a byte stream, member after member: concatenated gzip files
// read as one.
#pragma once

#include <memory>

#include "base/byte_stream.h"

namespace tidal::base {

// Reads `compressed` (which starts with the gzip magic) in kCompressedChunkBytes chunks.
// StreamError on corrupt data, on bytes after a member that do not start another one, and on
// a file that ends inside a member.
std::unique_ptr<ByteStream> make_gzip_stream(std::unique_ptr<ByteStream> compressed);

}  // namespace tidal::base
