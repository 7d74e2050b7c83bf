#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// One direction of the separable bilateral filter over the liquid's eye depth (Green, "Screen Space Fluid Rendering
// for Games", GDC 2010): a Gaussian in pixels whose half-width is a world radius projected at this pixel's depth,
// times a Gaussian in depth difference, so the spheres' bumps flatten while silhouettes (large depth jumps) stay.
// Pixels without liquid (depth 0) neither change nor contribute.
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
  float range = 1.0 / (2.0 * pc.depthSigma * pc.depthSigma);
  ivec2 step = ivec2(pc.stepX, pc.stepY);
  float sum = 0.0, weights = 0.0;
  for (int i = -n; i <= n; ++i) {
    ivec2 q = clamp(p + i * step, ivec2(0), size - 1);
    float s = imageLoad(source, q).r;
    if (s <= 0.0) continue;
    float dz = s - depth;
    float w = exp(-float(i * i) * spatial - dz * dz * range);
    sum += s * w;
    weights += w;
  }
  imageStore(destination, p, vec4(sum / weights));
}
