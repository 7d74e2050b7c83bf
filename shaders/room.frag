#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// A face of the room, lit from above with a grid every 0.1 m so that depth reads. A wall whose inside faces away
// from the camera (the near walls) is not drawn: the room is open towards the viewer.
layout(push_constant) uniform PushBlock {
  BoxPushConstants pc; // colour: xyz the eye, w the opacity
};

layout(location = 0) in vec3 inWorld;
layout(location = 1) flat in vec3 inInward;

layout(location = 0) out vec4 outColour;

const vec3 kLight = vec3(0.27, 0.9, 0.34); // towards the light: above, a little front right (unit length)
const vec3 kTile = vec3(0.45, 0.5, 0.6);
const float kGridStep = 0.1;

void main() {
  if (dot(inInward, pc.colour.xyz - inWorld) <= 0.0) discard;
  float lit = 0.35 + 0.65 * max(dot(inInward, kLight), 0.0);
  // Lines 1 pixel wide at any distance: the distance to the nearest grid line over its screen-space rate.
  vec3 cell = abs(fract(inWorld / kGridStep - 0.5) - 0.5) / max(fwidth(inWorld / kGridStep), vec3(1e-6));
  vec3 planar = mix(cell, vec3(1e9), abs(inInward)); // the face's own axis draws no lines
  float line = 1.0 - clamp(min(planar.x, min(planar.y, planar.z)), 0.0, 1.0);
  vec3 colour = kTile * lit * (1.0 + 0.6 * line);
  outColour = vec4(colour, pc.colour.w);
}
