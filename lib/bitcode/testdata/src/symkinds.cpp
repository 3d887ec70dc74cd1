inline int inl(int x) { return x * 2; }
template <class T> T tmpl(T x) { return x + 1; }
template int tmpl<int>(int);
struct S { virtual int v(); static int sm; };
int S::v() { return inl(1) + (int)tmpl(2.0); }
int S::sm = 3;
namespace { int anon() { return 4; } }
int use() { return anon() + S::sm; }
