#include "s2s/layers/settings.h"

namespace s2s::layers {

const char* position_encoding_name(PositionEncoding pe) {
  switch (pe) {
    case PositionEncoding::sinusoid_marian: return "sinusoid (Marian)";
    case PositionEncoding::sinusoid_hf: return "sinusoid (Hugging Face)";
    case PositionEncoding::learned: return "learned";
    case PositionEncoding::none: return "none";
  }
  return "?";
}

}  // namespace s2s::layers
