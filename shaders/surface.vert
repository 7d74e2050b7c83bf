#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// The liquid's sphere passes: each instance a body, its quad facing the camera (as particle.vert) at the surface's
// sphere radius.
layout(push_constant) uniform PushBlock {
  SurfacePushConstants pc;
};

layout(location = GRAPHSIM_BODY_LOCATION) in vec4 inBody;

layout(location = 0) out vec2 outQuad;
layout(location = 1) flat out vec4 outCentre; // xyz: the sphere's centre; w: its colour attribute (foam)

void main() {
  vec2 corner = vec2((gl_VertexIndex & 1) != 0 ? 1.0 : -1.0, (gl_VertexIndex & 2) != 0 ? 1.0 : -1.0);
  vec3 offset = (corner.x * pc.cameraRight.xyz + corner.y * pc.cameraUp.xyz) * pc.cameraRight.w;
  gl_Position = pc.viewProj * vec4(inBody.xyz + offset, 1.0);
  outQuad = corner;
  outCentre = inBody;
}
