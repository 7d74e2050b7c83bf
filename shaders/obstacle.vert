#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// One quad through the sphere's centre, facing the camera, just large enough to cover its silhouette from the eye:
// a half-width of r d / sqrt(d^2 - r^2) at distance d. The fragment shader traces the sphere.
layout(push_constant) uniform PushBlock {
  ObstaclePushConstants pc;
};

layout(location = 0) out vec3 outWorld;

void main() {
  vec2 corner = vec2((gl_VertexIndex & 1) != 0 ? 1.0 : -1.0, (gl_VertexIndex & 2) != 0 ? 1.0 : -1.0);
  float r = pc.sphere.w;
  float d = max(distance(pc.eye.xyz, pc.sphere.xyz), r * 1.001);
  float half_ = r * d / sqrt(d * d - r * r);
  outWorld = pc.sphere.xyz + (corner.x * pc.cameraRight.xyz + corner.y * pc.cameraUp.xyz) * half_;
  gl_Position = pc.viewProj * vec4(outWorld, 1.0);
}
