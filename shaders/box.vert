#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// The scene box without vertex buffers: gl_VertexIndex picks a corner, whose bits say which coordinate is max
// (bit 0: x, bit 1: y, bit 2: z). Vertices 0..23 are the 12 edges (line list).
layout(push_constant) uniform PushBlock {
  BoxPushConstants pc;
};

const int kCorners[24] = int[24](0, 1, 2, 3, 4, 5, 6, 7,  // edges along x
                                 0, 2, 1, 3, 4, 6, 5, 7,  // along y
                                 0, 4, 1, 5, 2, 6, 3, 7); // along z

void main() {
  int corner = kCorners[gl_VertexIndex];
  vec3 select = vec3(corner & 1, (corner >> 1) & 1, (corner >> 2) & 1);
  gl_Position = pc.viewProj * vec4(mix(pc.boxMin.xyz, pc.boxMax.xyz, select), 1.0);
}
