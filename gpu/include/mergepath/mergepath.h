// mergepath.h — umbrella header of the mergepath library (see ops.h for the
// operations, context.h for backends and memory, types.h for keys and errors).
#pragma once

#include "mergepath/context.h"
#include "mergepath/ops.h"
#include "mergepath/types.h"
