#pragma once
// The help overlay (H): every key and what it does, from the one key table
// (ui/present/live_keys), over a dimmed window.
#include "ui/imgui/look.h"

namespace plab::imgui {

// Call every frame with whether the overlay is wanted: opens it, draws it,
// closes it once unwanted; returns whether it is still open (false once
// clicked away).
bool help_overlay(const Look& look, bool wanted);

}  // namespace plab::imgui
