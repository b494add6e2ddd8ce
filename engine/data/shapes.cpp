#include "engine/data/shapes.h"

#include <cmath>
#include <numbers>

namespace plab {

// Products are kept in named values before they are added: a compiler that
// contracts `a * b + c` within one expression into a fused multiply-add
// (Clang's default) would otherwise round differently on machines with FMA.

namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

// Independent Gaussian noise of std `noise` on both coordinates.
Point with_noise(Point p, double noise, Rng& rng) {
    const double dx = noise * rng.normal();
    const double dy = noise * rng.normal();
    return {p.x + dx, p.y + dy};
}

Point on_circle(double radius, double angle) { return {radius * std::cos(angle), radius * std::sin(angle)}; }

// +1 or -1 with equal odds.
double random_sign(Rng& rng) { return rng.below(2) == 0 ? 1.0 : -1.0; }

}  // namespace

Point spiral_point(int arm, int arms, double noise, Rng& rng) {
    const double r = rng.uniform();
    const double turn = kSpiralTurns * r;
    const double angle = kTwoPi * (static_cast<double>(arm) / arms + turn);
    return with_noise(on_circle(r, angle), noise, rng);
}

Point moon_point(int label, double noise, Rng& rng) {
    const double t = std::numbers::pi * rng.uniform();
    const Point upper = on_circle(1.0, t);
    const Point p = label == 0 ? upper : Point{1.0 - upper.x, 0.5 - upper.y};
    return with_noise(p, noise, rng);
}

Point circle_point(int label, double noise, Rng& rng) {
    const double radius = label == 0 ? 1.0 : kCirclesInnerFactor;
    return with_noise(on_circle(radius, kTwoPi * rng.uniform()), noise, rng);
}

Point xor_point(int label, double noise, Rng& rng) {
    // Magnitudes in (0, 1] rather than [0, 1): a coordinate of exactly 0
    // would have no sign, hence no class.
    const double ax = 1.0 - rng.uniform();
    const double ay = 1.0 - rng.uniform();
    const double sx = random_sign(rng);
    const double sy = label == 0 ? sx : -sx;
    return with_noise({sx * ax, sy * ay}, noise, rng);
}

Point blob_point(int blob, int blobs, double noise, Rng& rng) {
    const Point centre = on_circle(kBlobCentreRadius, kTwoPi * blob / blobs);
    const double std_dev = kBlobStd + noise;
    const double dx = std_dev * rng.normal();
    const double dy = std_dev * rng.normal();
    return {centre.x + dx, centre.y + dy};
}

Point sine_point(double noise, Rng& rng) {
    const double span = 2.0 * std::numbers::pi * rng.uniform();
    const double x = static_cast<float>(span - std::numbers::pi);
    const double dy = noise * rng.normal();
    return {x, std::sin(x) + dy};
}

}  // namespace plab
