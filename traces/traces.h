// Everything traces/ offers: the Request record, readers, writers, generators, statistics.
#pragma once

#include "base/input_error.h"
#include "traces/convert.h"
#include "traces/dag.h"
#include "traces/format.h"
#include "traces/generators.h"
#include "traces/random.h"
#include "traces/reader.h"
#include "traces/request.h"
#include "traces/stats.h"
#include "traces/writer.h"
