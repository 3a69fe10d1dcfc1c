// Whether the calling thread flushes subnormal floats to zero. x86 keeps IEEE 754's gradual
// underflow by default, and Intel cores take a microcode assist on every operation with a
// subnormal operand or result, some hundred cycles each; a trained softmax's far tails are
// subnormal, and so is everything computed from them. Flushing (MXCSR's FTZ and DAZ bits, as
// TensorFlow's CPU kernels run) keeps those operations at full speed; values below the smallest
// normal number (1.2e-38 in float, 2.2e-308 in double) then count as 0. The mode belongs to a
// thread: a trial sets it on the thread that runs it (ModelSpec.subnormals), and ParallelFor
// runs its tasks in the caller's mode.
#ifndef ATTNLAB_ATTENTION_KERNELS_SUBNORMAL_MODE_H_
#define ATTNLAB_ATTENTION_KERNELS_SUBNORMAL_MODE_H_

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace attnlab {

namespace subnormal_internal {
#if defined(__SSE__)
constexpr unsigned kFlushBits = 0x8040;  // FTZ (results) and DAZ (inputs)
#endif
}  // namespace subnormal_internal

// Whether subnormal results and inputs count as zero on the calling thread. Always false where
// the CPU has no such mode (outside x86), and there ScopedSubnormalMode does nothing.
inline bool FlushesSubnormals() {
#if defined(__SSE__)
  return (_mm_getcsr() & subnormal_internal::kFlushBits) == subnormal_internal::kFlushBits;
#else
  return false;
#endif
}

// The calling thread flushes subnormals (or keeps them) for the object's lifetime; the mode
// before is restored after. Writes the control register only when the mode changes.
class ScopedSubnormalMode {
 public:
  explicit ScopedSubnormalMode(bool flush) {
#if defined(__SSE__)
    saved_ = _mm_getcsr();
    const unsigned wanted = flush ? saved_ | subnormal_internal::kFlushBits
                                  : saved_ & ~subnormal_internal::kFlushBits;
    if (wanted != saved_) _mm_setcsr(wanted);
#else
    (void)flush;
#endif
  }
  ~ScopedSubnormalMode() {
#if defined(__SSE__)
    if (_mm_getcsr() != saved_) _mm_setcsr(saved_);
#endif
  }
  ScopedSubnormalMode(const ScopedSubnormalMode&) = delete;
  ScopedSubnormalMode& operator=(const ScopedSubnormalMode&) = delete;

 private:
  unsigned saved_ = 0;
};

}  // namespace attnlab

#endif  // ATTNLAB_ATTENTION_KERNELS_SUBNORMAL_MODE_H_
