// setop.h — what the rest of the extension sees of the MergePath SetOp node: one call
// that registers it (its CustomScan methods, the upper-paths hook that offers it, the
// rewrite of its scan tuple after planning). Everything else is the node's own
// (setop_node.h, for the files of extension/setop/).
#pragma once

void mp_setop_install(void);  // from _PG_init
