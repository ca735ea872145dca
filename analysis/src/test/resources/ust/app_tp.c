/* The probes of app_tp.h, in a unit of their own: built without -finstrument-functions. */
#define TRACEPOINT_CREATE_PROBES
#define TRACEPOINT_DEFINE
#include "app_tp.h"
