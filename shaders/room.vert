#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// The box's floor and four walls without vertex buffers: gl_VertexIndex / 6 is the face, the corner bits say which
// coordinate is max (bit 0: x, bit 1: y, bit 2: z), as in box.vert.
layout(push_constant) uniform PushBlock {
  BoxPushConstants pc; // colour: xyz the eye, w the opacity
};

layout(location = 0) out vec3 outWorld;
layout(location = 1) flat out vec3 outInward; // the face's normal, pointing into the box

const int kCorners[30] = int[30](0, 1, 5, 0, 5, 4,  // floor (y = min)
                                 0, 2, 6, 0, 6, 4,  // x = min
                                 1, 3, 7, 1, 7, 5,  // x = max
                                 0, 1, 3, 0, 3, 2,  // z = min
                                 4, 5, 7, 4, 7, 6); // z = max
const vec3 kInward[5] = vec3[5](vec3(0, 1, 0), vec3(1, 0, 0), vec3(-1, 0, 0), vec3(0, 0, 1), vec3(0, 0, -1));

void main() {
  int corner = kCorners[gl_VertexIndex];
  vec3 select = vec3(corner & 1, (corner >> 1) & 1, (corner >> 2) & 1);
  outWorld = mix(pc.boxMin.xyz, pc.boxMax.xyz, select);
  outInward = kInward[gl_VertexIndex / 6];
  gl_Position = pc.viewProj * vec4(outWorld, 1.0);
}
