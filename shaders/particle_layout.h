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

// The box pipeline's push constants (shaders/box.vert, box.frag; room.vert, room.frag): 112 bytes, both stages.
// One draw of 24 vertices gives the box's 12 edges as a line list. The room reads the same block with `colour`
// holding the world-space eye (xyz) and its opacity (w): 30 vertices, five faces (floor, then x = min, x = max,
// z = min, z = max) as two triangles each; its fragment shader keeps a wall only where the camera sees its inside.
struct BoxPushConstants {
  mat4 viewProj; // Vulkan clip space: y down, depth 0..1
  vec4 boxMin;   // xyz: world-space minimum corner; w unused
  vec4 boxMax;   // xyz: world-space maximum corner; w unused
  vec4 colour;   // edges: the opaque rgba written; room: eye and opacity
};

// The obstacle sphere (shaders/obstacle.vert, obstacle.frag): one camera-facing quad that covers its silhouette, ray
// traced per pixel, depth written from the hit. 128 bytes, both stages.
struct ObstaclePushConstants {
  mat4 viewProj;
  vec4 sphere;      // xyz: centre, w: radius (world)
  vec4 eye;         // xyz: world-space camera position
  vec4 cameraRight; // xyz
  vec4 cameraUp;    // xyz
};

// The liquid surface's sphere passes (shaders/surface.vert, surface_thickness.frag, surface_depth.frag): 128 bytes.
// Eye depth is the distance along cameraForward from the eye, positive in front of it; 0 in the depth image: no
// liquid there.
struct SurfacePushConstants {
  mat4 viewProj;
  vec4 cameraRight;   // xyz; w: the spheres' world radius
  vec4 cameraUp;      // xyz
  vec4 cameraForward; // xyz: from the eye towards the target
  vec4 eye;           // xyz: world-space camera position
};

// The narrow-range depth filter (shaders/surface_smooth.comp), one direction per dispatch: 32 bytes.
struct SmoothPushConstants {
  int stepX, stepY;              // (1, 0) horizontal, (0, 1) vertical
  float radius;                  // the filter's half-width in world units, projected at each pixel's eye depth
  float pixelsPerUnitAtOneMetre; // the projection's scale: height / (2 tan(fovY / 2))
  float threshold;               // a sample farther behind than this is another layer: left out (world units)
  float clampDepth;              // a sample nearer than this in front counts as this near (world units)
  float pad0, pad1;
};

// The liquid's shading (shaders/fullscreen.vert, surface_composite.frag): 112 bytes, fragment stage.
struct CompositePushConstants {
  mat4 viewToWorld; // rotates view-space directions into the world (the sky is in world space)
  vec4 absorption;  // rgb: Beer-Lambert per metre; w: the refraction's offset in uv per metre of thickness
  vec4 frustum;     // x: tan(fovY / 2) * aspect, y: tan(fovY / 2), z: width, w: height (pixels)
  vec4 lightView;   // xyz: direction towards the light, in view space; w: the foam's strength (SurfaceStyle::foam)
};

#ifdef __cplusplus
struct Body {
  vec4 positionAttribute;
};
} // namespace graphsim::shaderio
#endif
#endif // __CUDACC__

#endif // GRAPHSIM_SHADERS_PARTICLE_LAYOUT_H
