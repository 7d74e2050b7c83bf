#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// Each instance is one body; the 4 vertices of a triangle strip span a camera-facing quad around it.
layout(push_constant) uniform PushBlock {
  ParticlePushConstants pc;
};

layout(location = GRAPHSIM_BODY_LOCATION) in vec4 inBody; // per instance: xyz position, w colour attribute

layout(location = 0) out vec2 outQuad;       // quad coordinate in [-1, 1]^2, +y = camera up
layout(location = 1) out float outAttribute;

void main() {
  // Strip order (-1,-1) (1,-1) (-1,1) (1,1): two triangles, winding irrelevant (no culling).
  vec2 corner = vec2((gl_VertexIndex & 1) != 0 ? 1.0 : -1.0, (gl_VertexIndex & 2) != 0 ? 1.0 : -1.0);
  vec3 offset = (corner.x * pc.cameraRight.xyz + corner.y * pc.cameraUp.xyz) * pc.pointRadius;
  gl_Position = pc.viewProj * vec4(inBody.xyz + offset, 1.0);
  outQuad = corner;
  outAttribute = inBody.w;
}
