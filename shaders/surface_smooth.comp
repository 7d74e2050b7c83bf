#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// One direction of the liquid's depth filter, a separable form of the narrow-range filter (Truong and Yuksel, "A
// Narrow-Range Filter for Screen-Space Fluid Rendering", I3D 2018): a Gaussian in pixels whose half-width is a world
// radius projected at this pixel's depth, over the samples within a narrow depth range of this pixel. A sample more
// than `threshold` behind belongs to a layer this pixel hides and is left out, so silhouettes stay sharp; one in front
// counts at most `clampDepth` nearer, so a splash before the surface dents it a little instead of pulling it forward.
// Inside that range every sample weighs by distance alone: the spheres' bumps (about a radius deep, more at grazing
// angles) flatten fully, where the Gaussian range weight of Green's bilateral filter (GDC 2010) kept the deeper ones
// as blocks. Pixels without liquid (depth 0) neither change nor contribute.
layout(local_size_x = 16, local_size_y = 16) in;

layout(push_constant) uniform PushBlock {
  SmoothPushConstants pc;
};

layout(set = 0, binding = 0, r32f) uniform readonly image2D source;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D destination;

const int kMaxHalfWidth = 24; // pixels: bounds the cost of a close-up

void main() {
  ivec2 size = imageSize(source);
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= size.x || p.y >= size.y) return;
  float depth = imageLoad(source, p).r;
  float halfWidth = depth > 0.0 ? pc.radius * pc.pixelsPerUnitAtOneMetre / depth : 0.0;
  int n = min(int(ceil(halfWidth)), kMaxHalfWidth);
  if (n < 1) {
    imageStore(destination, p, vec4(depth));
    return;
  }
  float spatial = 1.0 / (2.0 * (0.5 * halfWidth) * (0.5 * halfWidth));
  ivec2 step = ivec2(pc.stepX, pc.stepY);
  float sum = 0.0, weights = 0.0;
  for (int i = -n; i <= n; ++i) {
    ivec2 q = clamp(p + i * step, ivec2(0), size - 1);
    float s = imageLoad(source, q).r;
    if (s <= 0.0 || s > depth + pc.threshold) continue;
    float w = exp(-float(i * i) * spatial);
    sum += max(s, depth - pc.clampDepth) * w;
    weights += w;
  }
  imageStore(destination, p, vec4(sum / weights));
}
