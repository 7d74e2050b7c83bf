#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// The ray from the eye through this pixel against the sphere: the nearest hit's depth and a lit, matte grey.
layout(push_constant) uniform PushBlock {
  ObstaclePushConstants pc;
};

layout(location = 0) in vec3 inWorld;

layout(location = 0) out vec4 outColour;

const vec3 kLight = vec3(0.27, 0.9, 0.34);
const vec3 kSurface = vec3(0.75, 0.62, 0.45); // sand-coloured stone

void main() {
  vec3 ray = normalize(inWorld - pc.eye.xyz);
  vec3 toCentre = pc.sphere.xyz - pc.eye.xyz;
  float along = dot(toCentre, ray);
  float miss2 = dot(toCentre, toCentre) - along * along;
  float r2 = pc.sphere.w * pc.sphere.w;
  if (miss2 > r2) discard;
  vec3 hit = pc.eye.xyz + ray * (along - sqrt(r2 - miss2));
  vec3 normal = (hit - pc.sphere.xyz) / pc.sphere.w;
  vec4 clip = pc.viewProj * vec4(hit, 1.0);
  gl_FragDepth = clip.z / clip.w;
  float lit = 0.2 + 0.8 * max(dot(normal, kLight), 0.0);
  outColour = vec4(kSurface * lit, 1.0);
}
