// TURNLANES starts a turn of the AVX-512 kernels over lanes R9, R9 + 1, …
// of R8: it jumps to done when none are left, else sets CX to the turn's
// lanes, min(R8 − R9, 8), and K1 to their mask (the last turn's lanes past
// R8 masked off). It uses AX and R11.
#define TURNLANES(done) \
	MOVQ    R8, CX   \
	SUBQ    R9, CX   \
	JLE     done     \
	MOVQ    $8, R11  \
	CMPQ    CX, R11  \
	CMOVQGT R11, CX  \
	MOVL    $1, AX   \
	SHLL    CX, AX   \
	DECL    AX       \
	KMOVW   AX, K1
