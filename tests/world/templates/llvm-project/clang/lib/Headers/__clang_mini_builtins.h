/* Resource header of the miniature clang. */
#ifndef __CLANG_MINI_BUILTINS_H
#define __CLANG_MINI_BUILTINS_H
#define __clang_mini__ 1
#endif
