#version 450
#extension GL_GOOGLE_include_directive : require
#include "particle_layout.h"

// Flat colour: the edges opaque grey.
layout(push_constant) uniform PushBlock {
  BoxPushConstants pc;
};

layout(location = 0) out vec4 outColour;

void main() { outColour = pc.colour; }
