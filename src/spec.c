/* placeholder: the loader lands with the spec module */
#include "spec.h"
