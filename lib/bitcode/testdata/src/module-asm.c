__asm__(".globl asm_global\nasm_global:\n ret\n.weak asm_weak\nasm_weak:\n ret\nasm_local:\n ret\n.globl asm_undef_ref\n");
int f(void) { return 1; }
