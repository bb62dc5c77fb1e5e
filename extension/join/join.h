// join.h — what the rest of the extension sees of the MergePath Join node: one call
// that registers it (its CustomScan methods, the join-path hook that offers it, the
// rewrite of its scan tuple after planning). Everything else is the node's own
// (join_node.h, for the files of extension/join/).
#pragma once

void mp_join_install(void);  // from _PG_init
