// Host/shader shared layouts of the particle pipeline. Included by GLSL (GL_GOOGLE_include_directive) and by C++,
// where render/particle_pipeline.cpp static_asserts that the two sides agree byte for byte, and by CUDA
// (compute/cuda/nbody_kernels.cu asserts the body write_render writes against GRAPHSIM_BODY_STRIDE). nvcc sees only
// the body macros: the C++ types below are glm's, whose host/device annotations draw about 90 nvcc warnings
// (#20012-D) per file, and the kernel writes a float4, not a glm::vec4.
#ifndef GRAPHSIM_SHADERS_PARTICLE_LAYOUT_H
#define GRAPHSIM_SHADERS_PARTICLE_LAYOUT_H

// One body as the producers (CPU backend, CUDA write_render kernel) write it: 16 bytes,
// xyz = world position, w = colour attribute in [0, 1] (e.g. normalised speed).
// Bound as a per-instance vertex buffer, so the consumer stage is VERTEX_INPUT (what simDone is waited at).
#define GRAPHSIM_BODY_STRIDE 16
#define GRAPHSIM_BODY_LOCATION 0

// ParticlePushConstants::palette: render::Palette's values (render/render_types.h documents the colours).
#define GRAPHSIM_PALETTE_NBODY 0
#define GRAPHSIM_PALETTE_FLUID 1

#ifndef __CUDACC__
#ifdef __cplusplus
#include <glm/glm.hpp>

namespace graphsim::shaderio {
using glm::mat4;
using glm::vec4;
#endif

// Push constants (std430 in GLSL; 112 of the 128 bytes Vulkan guarantees). Shared by both stages.
struct ParticlePushConstants {
  mat4 viewProj;     // Vulkan clip space: y down, depth 0..1
  vec4 cameraRight;  // xyz: world-space camera right, spans the quad; w unused
  vec4 cameraUp;     // xyz: world-space camera up; w unused
  float pointRadius; // world-space sphere radius
  float colourScale; // multiplies the body attribute before the colour map
  int palette;       // GRAPHSIM_PALETTE_*; 0 (n-body) is what the zero padding this replaced selected
  float pad1;
};

// The box pipeline's push constants (shaders/box.vert, box.frag): 112 bytes, both stages. One draw of 24 vertices
// gives the 12 edges as a line list, one of 6 vertices from firstVertex 24 the floor (y = boxMin.y) as 2 triangles.
struct BoxPushConstants {
  mat4 viewProj; // Vulkan clip space: y down, depth 0..1
  vec4 boxMin;   // xyz: world-space minimum corner; w unused
  vec4 boxMax;   // xyz: world-space maximum corner; w unused
  vec4 colour;   // rgba written (edges: opaque; floor: blended with its alpha)
};

#ifdef __cplusplus
struct Body {
  vec4 positionAttribute;
};
} // namespace graphsim::shaderio
#endif
#endif // __CUDACC__

#endif // GRAPHSIM_SHADERS_PARTICLE_LAYOUT_H
