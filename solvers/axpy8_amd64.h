// BROADCAST8 sets every lane of Yr to a[r], r < 8, a's address in reg.
#define BROADCAST8(reg) \
	VBROADCASTSD (reg), Y0   \
	VBROADCASTSD 8(reg), Y1  \
	VBROADCASTSD 16(reg), Y2 \
	VBROADCASTSD 24(reg), Y3 \
	VBROADCASTSD 32(reg), Y4 \
	VBROADCASTSD 40(reg), Y5 \
	VBROADCASTSD 48(reg), Y6 \
	VBROADCASTSD 56(reg), Y7

// AXPY8 adds a₀x₀ + … + a₇x₇ to the four columns of g at dst, left to
// right, each product and sum rounded (VMULPD, then VADDPD: no FMA), as
// eight floats.AddScaled calls in row order leave them: a[r] is in every
// lane of Yr (r < 8), x0–x7 are the memory operands of the rows' four
// columns; Y8–Y15 are scratch.
#define AXPY8(dst, x0, x1, x2, x3, x4, x5, x6, x7) \
	VMULPD  x0, Y0, Y9    \
	VMULPD  x1, Y1, Y10   \
	VMULPD  x2, Y2, Y11   \
	VMULPD  x3, Y3, Y12   \
	VADDPD  dst, Y9, Y8   \
	VADDPD  Y10, Y8, Y8   \
	VADDPD  Y11, Y8, Y8   \
	VADDPD  Y12, Y8, Y8   \
	VMULPD  x4, Y4, Y13   \
	VMULPD  x5, Y5, Y14   \
	VMULPD  x6, Y6, Y15   \
	VMULPD  x7, Y7, Y9    \
	VADDPD  Y13, Y8, Y8   \
	VADDPD  Y14, Y8, Y8   \
	VADDPD  Y15, Y8, Y8   \
	VADDPD  Y9, Y8, Y8    \
	VMOVUPD Y8, dst

// STORE8 stores Y0–Y7, in order, to the 256 bytes at reg: the eight
// accumulators dot8's and packed8's kernels return.
#define STORE8(reg) \
	VMOVUPD Y0, (reg)    \
	VMOVUPD Y1, 32(reg)  \
	VMOVUPD Y2, 64(reg)  \
	VMOVUPD Y3, 96(reg)  \
	VMOVUPD Y4, 128(reg) \
	VMOVUPD Y5, 160(reg) \
	VMOVUPD Y6, 192(reg) \
	VMOVUPD Y7, 224(reg)
