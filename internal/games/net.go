package games

import "github.com/zerogames/zero/net"

// NetSpec describes the game to the network: a spatial policy head where the game places its
// actions on the grid (env.SpatialPolicy), a dense head otherwise.
func (e generic[S]) NetSpec() (*net.Spec, error) { return net.SpecOf(e.g.Info(), e.g) }
