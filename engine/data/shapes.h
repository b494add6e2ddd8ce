#pragma once
// The geometry of the toy data sets: one point of a given class, noise
// included. Coordinates are doubles; make_dataset rounds them to float once.
//
// sin, cos and log come from the C library, which IEEE 754 does not require
// to round correctly. Computing in double and rounding to float once means a
// last-bit difference between C libraries changes a stored float only when
// the double sits within an ulp of a float rounding boundary (about one value
// in 2^29); the GoldenBits test would show it.
//
// Every function draws the same number of random values whatever `noise` is
// (noise 0 still draws its normals), so one seed gives the same underlying
// points and labels at every noise level.
#include "engine/data/random.h"

namespace plab {

inline constexpr double kSpiralTurns = 1.0;         // turns an arm makes from radius 0 to radius 1
inline constexpr double kCirclesInnerFactor = 0.5;  // inner circle's radius; the outer one has radius 1
inline constexpr double kBlobCentreRadius = 2.0;    // blob centres lie evenly on this circle
inline constexpr double kBlobStd = 0.5;             // blob spread before `noise` is added to it

struct Point {
    double x = 0.0;
    double y = 0.0;
};

// Arm `arm` of `arms` Archimedean spirals: radius r uniform in [0, 1), angle
// 2*pi*(arm/arms + kSpiralTurns*r).
Point spiral_point(int arm, int arms, double noise, Rng& rng);

// sklearn's make_moons: class 0 the upper half of the unit circle, class 1
// the lower half shifted to centre (1, 0.5).
Point moon_point(int label, double noise, Rng& rng);

// Class 0 on the unit circle, class 1 on the circle of radius kCirclesInnerFactor.
Point circle_point(int label, double noise, Rng& rng);

// Uniform in [-1, 1]^2 without the axes; class 0 where x and y have the same
// sign, class 1 where they differ. The label describes the point before noise.
Point xor_point(int label, double noise, Rng& rng);

// Blob `blob` of `blobs`: Gaussian with std kBlobStd + noise around the
// centre at angle 2*pi*blob/blobs on the circle of radius kBlobCentreRadius.
Point blob_point(int blob, int blobs, double noise, Rng& rng);

// Regression: x uniform in [-pi, pi], already rounded to float so the target
// is computed from the input the model sees; y = sin(x) + noise.
Point sine_point(double noise, Rng& rng);

}  // namespace plab
